/** What every KV path shares: the store and the secrets of the request's mount. */
import { NotFound } from '../../errors';
import type { ExistsReq, ReqContext } from '../../http/path';
import { KvStore } from '../kv-store';
import { KvSecrets } from '../secrets';
import { folderOf } from './shapes';

/** The request's KV store; a write let in as create or update has its record's changes confirm which it is (ReqContext.existence). */
export const kvStore = (req: Pick<ReqContext, 'deps' | 'part' | 'existence'>) => new KvStore(req.deps, req.part, req.existence?.confirm);
export const kvSecrets = (req: Pick<ReqContext, 'deps' | 'part' | 'existence'>) => new KvSecrets(kvStore(req), req.deps.now);

/**
 * A version 2 write names a secret: `create` when there is none at the path, `update` when there
 * is. This process's last write of it may answer (a guess its write verifies: KvStore.change).
 */
export const secretExists = ({ params, part, deps }: ExistsReq) => new KvStore(deps, part).exists(params.path ?? '', { guess: true });

/** Version 1 writes without a version to condition on: its existence check always reads. */
export const secretExistsV1 = ({ params, part, deps }: ExistsReq) => new KvStore(deps, part).exists(params.path ?? '');

/** LIST of a folder (`''`: the top of the mount): the names one level down, folders ending in `/`; 404 when empty, as Vault. */
export async function listFolder(req: ReqContext, path: string | undefined) {
  const keys = await kvStore(req).list(folderOf(path));
  if (!keys.length) throw new NotFound();
  return { data: { keys } };
}
