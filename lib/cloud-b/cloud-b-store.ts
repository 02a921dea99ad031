/** A cloud-B mount's roles and configuration (the shared cloud repository, with cloud-B's record types). */
import { CloudStore } from '../cloud-common/cloud-store';
import type { SealedValue } from '../keys/sealed';
import type { Partition } from '../store/store';
import type { Role } from './role';

/** The configuration record: the root access key, its secret sealed (config.ts seals and opens it). */
export type StoredConfig = {
  accessKey: string;
  secretKey: SealedValue;
};

export type CloudBStore = CloudStore<Role, StoredConfig>;

export const cloudBStore = (part: Partition): CloudBStore => new CloudStore(part);
