/**
 * The reference server's "role required": a path under `<op>/:name` runs with the named role
 * loaded from its mount, or the request is refused. One helper for every engine; each engine
 * states how a name is checked, where its roles live and how it words an unknown role (the
 * clients and tests pin each engine's message and status).
 */
import type { ReqContext } from './path';

export interface RoleRule<R> {
  /** Checks (and returns) the name given in the path: throws a 400 on an invalid one. Default: as given. */
  check?: (raw: string) => string;
  /** The role from the request's mount (its repository over `req.part`), undefined when there is none. */
  load: (req: ReqContext, name: string) => Promise<R | undefined>;
  /** The engine's answer for a role that does not exist. */
  unknown: (name: string) => Error;
}

/** The named role of the request's mount, or the engine's error for an unknown one. */
export async function requireRole<R>(rule: RoleRule<R>, req: ReqContext, raw: string): Promise<{ name: string; role: R }> {
  const name = rule.check ? rule.check(raw) : raw;
  const role = await rule.load(req, name);
  if (role === undefined) throw rule.unknown(name);
  return { name, role };
}
