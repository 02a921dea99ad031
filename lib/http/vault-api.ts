/**
 * The Vault-style API on the front door (front-door.ts): sys, the auth methods and every engine
 * serve their declared paths here, in Vault's envelope. A request goes through the pipeline of
 * lib/http/pipeline/: decode → authorize → validate → run → lease → wrap → render, each a function over
 * one record of the call; the audit log's response record is taken from the answer before it is
 * rendered.
 */
import type { Context, Hono } from 'hono';
import type { Deps } from '../deps';
import { NotFound } from '../errors';
import { errorResponse } from './envelope';
import { frontDoor, route, type Renderer } from './front-door';
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

/** Vault's error envelope; a miss under a known prefix is an unsupported path. */
function envelopeRenderer(prefixes: string[]): Renderer {
  return {
    error: (err, c) => errorResponse(err.status, err.messages, c.get('scope').pretty, c.get('scope').id),
    notFound: (path) =>
      new NotFound(
        prefixes.some((p) => path === p || path.startsWith(p + '/'))
          ? `unsupported path "${path}"`
          : `no handler for route "${path.slice(0, 256)}"`,
      ),
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
  scope.log.path = `${set.prefix}/${spec.pattern}`;
  audit.request.mountType = set.mount.type;
  audit.request.mountPoint = `${set.prefix}/`;
  if (set.mount.auditClearRequestKeys) audit.request.clearKeys = set.mount.auditClearRequestKeys;
  return {
    c,
    scope,
    audit,
    set,
    spec,
    deps,
    part: deps.store.partition(partitionName(set.mount)),
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
