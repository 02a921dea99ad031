/** The jwt auth method (being built). */
import type { AuthMethodModule } from '../method';

export const jwtMethod: AuthMethodModule = {
  type: 'jwt',
  paths: () => [],
};
