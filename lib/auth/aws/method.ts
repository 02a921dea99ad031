/** The aws auth method (being built). */
import type { AuthMethodModule } from '../method';

export const awsMethod: AuthMethodModule = {
  type: 'aws',
  paths: () => [],
};
