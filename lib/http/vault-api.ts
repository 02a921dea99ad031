/**
 * The Vault-style API on the front door (front-door.ts): sys, the auth methods and every engine
 * serve their declared paths here, in Vault's envelope. A request goes through the pipeline of
 * lib/http/pipeline/: decode → authorize → validate → run → lease → wrap → render, each a function over
 * one record of the call; the audit log's response record is taken from the answer before it is
 * rendered.
 */
import { primedPartition } from './primed-partition';
import type { Context, Hono } from 'hono';
import type { Deps } from '../deps';
import { NotFound } from '../errors';
import { errorResponse } from './envelope';
import { frontDoor, pathTemplate, route, type Renderer } from './front-door';
import { partitionName, type PathSpec, type RouteSet } from './path';
import { auditResponse } from './pipeline/audit-response';
import { authorize } from './pipeline/authorize';
import type { Call } from './pipeline/call';
import { decode } from './pipeline/decode';
import { lease } from './pipeline/lease';
import { render } from './pipeline/render';
import { run } from './pipeline/run';
import { validate } from './pipeline/validate';
import { wrap } from './pipeline/wrap';

export interface ApiOptions {
  /** The function's name, for the log line. */
  name: string;
  deps: Deps;
  routes: RouteSet[];
}

/**
 * Vault's error envelope. A path no route takes is a 404 naming the path asked and what is
 * missing, in one form: under a mount, Vault's "unsupported path"; under none, its "no handler
 * for route" (OpenBao's CLI tells the two apart by these words: not a PKI mount, no mount). A 404
 * a handler gave without a message (nothing stored at the path) names the path too, except a
 * LIST's: Vault answers a LIST with no keys `{"errors":[]}`, and clients read that as "empty".
 */
function envelopeRenderer(prefixes: string[]): Renderer {
  return {
    error: (err, c) => {
      const scope = c.get('scope');
      const messages =
        err.status === 404 && err.messages.length === 0 && c.get('audit').request.operation !== 'list' && scope.path !== undefined
          ? [`nothing found at "${scope.path.slice(0, 256)}"`]
          : err.messages;
      return errorResponse(err.status, messages, scope.pretty, scope.id);
    },
    notFound: (path) => {
      const shown = JSON.stringify(path === '' ? '/v1/' : path.slice(0, 256));
      const mount = prefixes.filter((p) => path === p || path.startsWith(p + '/')).sort((a, b) => b.length - a.length)[0];
      return new NotFound(
        mount !== undefined
          ? `unsupported path ${shown}: the ${mount}/ mount has no such path`
          : `no handler for route ${shown}: no mount serves it`,
      );
    },
  };
}

export function createVaultApi(options: ApiOptions): Hono {
  const app = frontDoor(options.name, envelopeRenderer(options.routes.map((r) => r.prefix)), options.deps.audit);
  // Longest prefix first, so "auth/token" wins over a hypothetical "auth"; paths as declared.
  for (const set of [...options.routes].sort((a, b) => b.prefix.length - a.prefix.length)) {
    for (const spec of set.paths) route(app, set.prefix, spec.pattern, (c) => pipeline(c, set, spec, options.deps));
  }
  return app;
}

/** A new call: what the route and the front door know before the pipeline starts. */
function newCall(c: Context, set: RouteSet, spec: PathSpec, deps: Deps): Call {
  const scope = c.get('scope');
  const audit = c.get('audit');
  scope.log.mount = set.mount.path;
  scope.log.path = pathTemplate(set.prefix, spec.pattern);
  audit.request.mountType = set.mount.type;
  audit.request.mountPoint = `${set.prefix}/`;
  if (set.mount.auditClearRequestKeys) audit.request.clearKeys = set.mount.auditClearRequestKeys;
  const primed = primedPartition(deps.store.partition(partitionName(set.mount)));
  return {
    c,
    scope,
    audit,
    set,
    spec,
    deps,
    part: primed.part,
    primed,
    op: 'read',
    full: '',
    rel: '',
    params: {},
    input: {},
    data: {},
  };
}

/** The pipeline, step by step, for one request to a declared path. */
async function pipeline(c: Context, set: RouteSet, spec: PathSpec, deps: Deps): Promise<Response> {
  const call = newCall(c, set, spec, deps);
  await decode(call);
  await authorize(call);
  validate(call);
  const answer = await wrap(call, await lease(call, await run(call)));
  if (call.audit.enabled) call.audit.response = auditResponse(answer, set.mount);
  return render(call, answer);
}
