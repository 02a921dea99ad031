/** An auth mount's role list (LIST `role`): the names in order, or 404 when there is none. */
import { NotFoundError } from '../domain-errors';
import { definePath, type PathSpec, type Req, type Result } from '../http/path';

/** `alsoRead`: a plain GET answers the list too. */
export function roleListPath(pattern: string, names: (req: Req) => Promise<string[]>, opts: { alsoRead?: boolean } = {}): PathSpec {
  const list = async (req: Req): Promise<Result> => {
    const keys = await names(req);
    if (!keys.length) throw new NotFoundError();
    return { data: { keys } };
  };
  return definePath({
    pattern,
    fields: {},
    help: 'List the roles.',
    operations: opts.alsoRead ? { list, read: list } : { list },
    ...(opts.alsoRead ? { readLists: true } : {}),
  });
}
