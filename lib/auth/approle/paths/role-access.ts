/** The one "role required" rule of the approle paths, and the store of a request. */
import type { ReqContext } from '../../../http/path';
import { NotFound } from '../../../errors';
import { ApproleStore, type AppRole } from '../approle-store';
import { checkRoleName } from '../ids';

export const approleStore = (req: Pick<ReqContext, 'deps' | 'part'>) => new ApproleStore(req.deps, req.part);

/** The named role, or 404 `role "<name>" does not exist` (the reference's words). */
export async function requireAppRole(req: ReqContext, name: string): Promise<{ store: ApproleStore; role: AppRole }> {
  const store = approleStore(req);
  const item = await store.role(checkRoleName(name));
  if (!item) throw new NotFound(`role "${name}" does not exist`);
  return { store, role: item.value };
}
