/** A cloud-A mount's roles and configuration (the shared cloud repository, with cloud-A's record types). */
import { CloudStore } from '../cloud-common/cloud-store';
import type { Partition } from '../store/store';
import type { StoredConfig } from './config';
import type { Role } from './role';

export type CloudAStore = CloudStore<Role, StoredConfig>;

export const cloudAStore = (part: Partition): CloudAStore => new CloudStore(part);
