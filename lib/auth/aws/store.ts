/** The aws auth mount's records: its client configuration and its roles, in the mount's partition. */
import type { Partition } from '../../store/store';
import { AuthMountStore } from '../mount-store';
import type { AwsRole } from './role';

export type ClientConfig = {
  stsEndpoint: string;
  stsRegion: string;
  iamServerIdHeaderValue: string;
};

export const DEFAULT_CLIENT_CONFIG: ClientConfig = {
  stsEndpoint: 'https://sts.amazonaws.com',
  stsRegion: 'us-east-1',
  iamServerIdHeaderValue: '',
};

export class AwsAuthStore extends AuthMountStore<ClientConfig, AwsRole> {
  constructor(part: Partition) {
    super(part, 'config/client');
  }
}
