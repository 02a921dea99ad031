/**
 * Initialisation, once per table: the token HMAC key, then a root token, then the marker.
 * Concurrent callers: exactly one gets the root token; the others are told it is done.
 */
import type { Deps } from '../deps';
import { BadRequest, ExistsError } from '../errors';

const MARKER = 'config/initialized';

export async function isInitialized(deps: Deps): Promise<boolean> {
  return (await deps.store.partition('sys').get(MARKER)) !== undefined;
}

export async function initialize(deps: Deps): Promise<{ rootToken: string; accessor: string }> {
  if (await isInitialized(deps)) throw new BadRequest('the service is already initialized');
  await deps.tokens.ensureKey();
  const { token, record } = await deps.tokens.create({
    policies: ['root'],
    display_name: 'root',
    meta: {},
    num_uses: 0,
    ttl: 0,
    explicit_max_ttl: 0,
    renewable: false,
    parent: '',
    path: 'sys/init',
  });
  try {
    await deps.store
      .partition('sys')
      .put(MARKER, { time: new Date(deps.now()).toISOString(), root_accessor: record.accessor }, { ifAbsent: true });
  } catch (e) {
    await deps.tokens.revoke(record);
    if (e instanceof ExistsError) throw new BadRequest('the service is already initialized');
    throw e;
  }
  return { rootToken: token, accessor: record.accessor };
}
