/**
 * One signed RPC call to RAM or STS (POST, form body), its JSON answer, or a CloudError from the
 * cloud's `{"Code","Message"}` error shape. Throttling is retried a few times.
 */
import { CloudError, kindOfStatus, scrub, type CloudErrorKind } from '../cloud-common/cloud-error';
import { jsonOf, send } from '../cloud-common/http-client';
import { transient, withRetries } from '../cloud-common/retry';
import type { Endpoints } from './settings';
import { signedParams, type AccessCredentials } from './sign-request';

export type Service = 'ram' | 'sts';
const VERSIONS: Record<Service, string> = { ram: '2015-05-01', sts: '2015-04-01' };

export interface RpcContext {
  endpoints: Endpoints;
  creds: AccessCredentials;
}

function kindOf(code: string, status: number): CloudErrorKind {
  if (/^Throttling/.test(code) || code === 'ServiceUnavailable') return 'throttled';
  if (/^(InvalidAccessKeyId|SignatureDoesNotMatch|InvalidSecurityToken|IncompleteSignature)/.test(code)) return 'unauthorized';
  if (/^(NoPermission|Forbidden)/.test(code)) return 'forbidden';
  if (/^EntityNotExist/.test(code)) return 'not-found';
  if (/^(EntityAlreadyExists|DeleteConflict)/.test(code)) return 'conflict';
  return kindOfStatus(status);
}

export async function rpc<T = Record<string, unknown>>(
  ctx: RpcContext,
  service: Service,
  action: string,
  params: Record<string, string>,
): Promise<T> {
  return withRetries(() => once<T>(ctx, service, action, params), { attempts: 3, delayMs: 200, retryable: transient });
}

async function once<T>(ctx: RpcContext, service: Service, action: string, params: Record<string, string>): Promise<T> {
  const body = new URLSearchParams(signedParams('POST', VERSIONS[service], action, params, ctx.creds)).toString();
  const res = await send({
    method: 'POST',
    url: `${ctx.endpoints[service]}/`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body,
    ...(ctx.endpoints.ca ? { ca: ctx.endpoints.ca } : {}),
    timeoutMs: ctx.endpoints.timeoutMs,
  });
  const json = jsonOf(res.text) as Record<string, unknown> | undefined;
  if (res.status >= 200 && res.status < 300 && json) return json as T;
  const code = typeof json?.Code === 'string' ? json.Code : '';
  const message = typeof json?.Message === 'string' ? json.Message : `HTTP ${res.status}`;
  const secrets = [ctx.creds.accessKeySecret, ctx.creds.securityToken];
  throw new CloudError(
    kindOf(code, res.status),
    res.status,
    `${action} failed: ${code ? code + ': ' : ''}${scrub(message, secrets)}`,
    code,
  );
}
