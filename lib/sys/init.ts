/**
 * Initialisation, once per table: the token and audit HMAC keys, then a root token, then the marker.
 * Concurrent callers: exactly one gets the root token; the others are told it is done.
 *
 * Deployed, both are reached only through the sys function's internal events (lib/lambda.ts:
 * `init`, `generate-root`), which only an IAM principal allowed lambda:InvokeFunction on that
 * function can send; the public `PUT sys/init` is closed. Locally the server initialises itself.
 */
import type { Deps } from '../deps';
import { ExistsError, InvalidInput } from '../domain-errors';
import { recordVersion, VERSION } from './version-history';

const MARKER = 'config/initialized';

export interface RootToken {
  rootToken: string;
  /** The token's accessor: `auth/token/revoke-accessor` revokes it without the token itself. */
  accessor: string;
}

export async function isInitialized(deps: Deps): Promise<boolean> {
  return (await deps.store.partition('sys').get(MARKER)) !== undefined;
}

/** When the deployment was initialised (ISO time), or undefined before. */
export async function initializedAt(deps: Deps): Promise<string | undefined> {
  const marker = await deps.store.partition('sys').get(MARKER);
  return (marker?.value as { time?: string } | undefined)?.time;
}

/** The accessor of the root token made at initialisation (recorded in the marker). */
export async function initialRootAccessor(deps: Deps): Promise<string | undefined> {
  const marker = await deps.store.partition('sys').get(MARKER);
  return (marker?.value as { root_accessor?: string } | undefined)?.root_accessor;
}

async function createRoot(deps: Deps, path: string): Promise<RootToken & { record: Parameters<Deps['tokens']['revoke']>[0] }> {
  const { token, record } = await deps.tokens.create({
    policies: ['root'],
    display_name: 'root',
    meta: {},
    num_uses: 0,
    ttl: 0,
    explicit_max_ttl: 0,
    renewable: false,
    parent: '',
    path,
    allowRoot: true,
  });
  return { rootToken: token, accessor: record.accessor, record };
}

export async function initialize(deps: Deps): Promise<RootToken> {
  if (await isInitialized(deps)) throw new InvalidInput('the service is already initialized');
  await deps.tokens.ensureKey();
  await deps.audit.hasher.ensureKey();
  const { rootToken, accessor, record } = await createRoot(deps, 'sys/init');
  try {
    await deps.store
      .partition('sys')
      .put(MARKER, { time: new Date(deps.now()).toISOString(), root_accessor: accessor }, { ifAbsent: true });
  } catch (e) {
    await deps.tokens.revoke(record);
    if (e instanceof ExistsError) throw new InvalidInput('the service is already initialized');
    throw e;
  }
  await recordVersion(deps, VERSION);
  return { rootToken, accessor };
}

/**
 * A new root token for an operator who holds IAM access to the sys function (the reference
 * server's generate-root, without its unseal-key quorum: IAM is the quorum here).
 */
export async function generateRoot(deps: Deps): Promise<RootToken> {
  if (!(await isInitialized(deps))) throw new InvalidInput('the service is not initialized: initialize it first');
  const { rootToken, accessor } = await createRoot(deps, 'sys/generate-root');
  return { rootToken, accessor };
}
