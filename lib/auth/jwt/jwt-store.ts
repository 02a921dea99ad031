/** The jwt mount's records: `config` and `role/<name>` in the mount's partition. */
import type { Partition } from '../../store/store';
import { AuthMountStore } from '../mount-store';
import type { JwtConfig } from './config';
import type { JwtRole } from './role';

export class JwtStore extends AuthMountStore<JwtConfig, JwtRole> {
  constructor(part: Partition) {
    super(part, 'config');
  }
}
