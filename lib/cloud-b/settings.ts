/** Deployment settings of the cloud-B engine (CLOUDB_* variables): endpoints, extra CA, time-outs. */
import { endpoint, positiveInt, type EnvReader } from '../cloud-common/env-settings';

export interface Endpoints {
  ram: string;
  sts: string;
  metadata: string;
  ca?: string;
  timeoutMs: number;
  metadataTimeoutMs: number;
  metadataRole: string;
}

export function endpointsOf(readEnv: EnvReader): Endpoints {
  const env = readEnv();
  return {
    ram: endpoint(env, 'CLOUDB_RAM_ENDPOINT', 'https://ram.aliyuncs.com'),
    sts: endpoint(env, 'CLOUDB_STS_ENDPOINT', 'https://sts.aliyuncs.com'),
    metadata: endpoint(env, 'CLOUDB_METADATA_ENDPOINT', 'http://100.100.100.200'),
    ...(env.CLOUDB_CA_CERT ? { ca: env.CLOUDB_CA_CERT } : {}),
    timeoutMs: positiveInt(env, 'CLOUDB_TIMEOUT_MS', 8000),
    metadataTimeoutMs: positiveInt(env, 'CLOUDB_METADATA_TIMEOUT_MS', 2000),
    metadataRole: env.CLOUDB_METADATA_ROLE?.trim() ?? '',
  };
}
