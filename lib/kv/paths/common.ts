/** What every KV path shares: the store and the secrets of the request's mount. */
import { NotFound } from '../../errors';
import type { ExistsReq, ReqContext } from '../../http/path';
import { KvStore } from '../kv-store';
import { KvSecrets } from '../secrets';
import { folderOf } from './shapes';

export const kvStore = (req: Pick<ReqContext, 'deps' | 'part'>) => new KvStore(req.deps, req.part);
export const kvSecrets = (req: Pick<ReqContext, 'deps' | 'part'>) => new KvSecrets(kvStore(req), req.deps.now);

/** A write names a secret: `create` when there is none at the path, `update` when there is. */
export const secretExists = ({ params, part, deps }: ExistsReq) => new KvStore(deps, part).exists(params.path ?? '');

/** LIST of a folder (`''`: the top of the mount): the names one level down, folders ending in `/`; 404 when empty, as Vault. */
export async function listFolder(req: ReqContext, path: string | undefined) {
  const keys = await kvStore(req).list(folderOf(path));
  if (!keys.length) throw new NotFound();
  return { data: { keys } };
}
