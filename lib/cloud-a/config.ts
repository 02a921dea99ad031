/**
 * The stored configuration of a cloud-A mount (client secret sealed) and the effective
 * settings a request uses: CLOUDA_* environment variables override stored parameters, and the
 * endpoints come from `environment`, each overridable by the deployment's environment.
 */
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import { isSealed, type SealedValue } from '../keys/sealed';
import type { Partition } from '../store/store';
import { endpoint, positiveInt, type EnvReader } from '../cloud-common/env-settings';
import { cloudOf, type CloudEndpoints } from './environments';

const SECRET_AAD = 'config#client_secret';
const PENDING_AAD = 'config#pending_secret';
export const DEFAULT_ROOT_PASSWORD_TTL = 182 * 86400;

/**
 * A rotation in progress. "adding": the new password may exist (found by `displayName`), its
 * secret unknown; "added": the new secret is stored, not yet in use; "switched": in use, the
 * old passwords (`removeKeyIds`) are still to be removed.
 */
export type PendingRotation = {
  state: 'adding' | 'added' | 'switched';
  displayName: string;
  appObjectId: string;
  removeKeyIds: string[];
  keyId: string;
  secret: SealedValue | null;
  endDate: string;
  created: number;
};

/** Types (not interfaces): the store keeps them as the JSON they are. */
export type StoredConfig = {
  subscriptionId: string;
  tenantId: string;
  clientId: string;
  clientSecret: SealedValue | null;
  environment: string;
  passwordPolicy: string;
  useVendorGraphApi: boolean;
  rootPasswordTtl: number;
  pending: PendingRotation | null;
};

export interface Settings {
  subscriptionId: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  endpoints: CloudEndpoints;
  /** The canonical resource ids used as token scopes (the real cloud's, even behind an override). */
  scopes: { graph: string; resourceManager: string };
  ca?: string;
  timeoutMs: number;
  retryDelayMs: number;
  rootPasswordTtl: number;
}

export const sealSecret = (deps: Deps, part: Partition, secret: string) => deps.sealer.seal(secret, part.name, SECRET_AAD);
export const sealPending = (deps: Deps, part: Partition, secret: string) => deps.sealer.seal(secret, part.name, PENDING_AAD);
export async function openPending(deps: Deps, p: PendingRotation): Promise<string> {
  return p.secret ? deps.sealer.openText(p.secret, PENDING_AAD) : '';
}

/** The settings of one request, or 400 naming what is missing. */
export async function effectiveSettings(deps: Deps, stored: StoredConfig | undefined, readEnv: EnvReader): Promise<Settings> {
  const env = readEnv();
  const pick = (name: string, v: string | undefined) => env[name]?.trim() || v || '';
  const storedSecret =
    stored?.clientSecret && isSealed(stored.clientSecret) ? await deps.sealer.openText(stored.clientSecret, SECRET_AAD) : '';
  const s = {
    subscriptionId: pick('CLOUDA_SUBSCRIPTION_ID', stored?.subscriptionId),
    tenantId: pick('CLOUDA_TENANT_ID', stored?.tenantId),
    clientId: pick('CLOUDA_CLIENT_ID', stored?.clientId),
    clientSecret: env.CLOUDA_CLIENT_SECRET || storedSecret,
    environment: pick('CLOUDA_ENVIRONMENT', stored?.environment),
  };
  if (!stored && !s.tenantId) throw new InvalidInput('the engine is not configured: write config first (or set CLOUDA_* variables)');
  if (!s.tenantId || !s.subscriptionId) throw new InvalidInput('the configuration lacks tenant_id or subscription_id');
  if (!s.clientId || !s.clientSecret) throw new InvalidInput('the configuration lacks client_id or client_secret');
  const cloud = cloudOf(s.environment);
  const ca = env.CLOUDA_CA_CERT;
  return {
    ...s,
    endpoints: {
      authority: endpoint(env, 'CLOUDA_AUTHORITY_URL', cloud.authority),
      graph: endpoint(env, 'CLOUDA_GRAPH_URL', cloud.graph),
      resourceManager: endpoint(env, 'CLOUDA_RESOURCE_MANAGER_URL', cloud.resourceManager),
    },
    scopes: { graph: cloud.graph, resourceManager: cloud.resourceManager },
    ...(ca ? { ca } : {}),
    timeoutMs: positiveInt(env, 'CLOUDA_TIMEOUT_MS', 8000),
    retryDelayMs: positiveInt(env, 'CLOUDA_RETRY_DELAY_MS', 1000),
    rootPasswordTtl: stored?.rootPasswordTtl || DEFAULT_ROOT_PASSWORD_TTL,
  };
}
