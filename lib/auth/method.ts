/** What an auth method module is: its declared paths for one of its mounts (as an engine's). */
import type { PathSpec } from '../http/path';
import type { AuthMount, AuthType } from '../auth-mounts';

export interface AuthMethodModule {
  type: AuthType;
  paths(mount: AuthMount): PathSpec[];
}
