/**
 * Step 4: the handler. The request record goes to the audit log first (no device takes it: no
 * action, a 500); a wrap TTL the request asks for is checked before anything changes; then the
 * handler runs with the request as its declaration promises it (lib/http/path.ts `Req`).
 */
import type { Req, Result } from '../path';
import { requestedWrapTtl } from '../wrap-ttl';
import type { Call } from './call';
import { existenceOf } from './existence';
import { secretsOf } from './lease';

/** The request as the handler sees it. */
export function handlerRequest(call: Call): Req {
  const { c, scope } = call;
  const request = c.req.raw;
  return {
    data: call.data,
    op: call.op,
    mount: call.set.mount,
    part: call.part,
    path: call.rel,
    requestId: scope.id,
    headers: request.headers,
    deps: call.deps,
    secrets: secretsOf(call),
    ...withExistence(call),
    ...(call.principal ? { principal: call.principal } : {}),
    ...(call.token ? { token: call.token } : {}),
    ...(request.method === 'HEAD' ? { head: true } : {}),
    ...(scope.remoteAddress ? { remoteAddress: scope.remoteAddress } : {}),
    ...(call.raw ? { body: call.raw.body, ...(call.raw.contentType ? { contentType: call.raw.contentType } : {}) } : {}),
    ...(call.spec.takesArbitraryInput ? { input: call.input } : {}),
  };
}

function withExistence(call: Call): Pick<Req, 'existence'> {
  const existence = existenceOf(call);
  return existence ? { existence } : {};
}

export async function run(call: Call): Promise<Result> {
  requestedWrapTtl(call.c.req.raw.headers);
  await call.audit.record();
  call.primed.stopPriming();
  const handler = call.spec.operations[call.op];
  if (!handler) throw new Error(`no ${call.op} handler`);
  return (await handler(handlerRequest(call))) ?? {};
}
