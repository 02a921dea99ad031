/** The approle auth method (being built). */
import type { AuthMethodModule } from '../method';

export const approleMethod: AuthMethodModule = {
  type: 'approle',
  paths: () => [],
};
