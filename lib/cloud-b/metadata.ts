/**
 * Credentials from the instance metadata service: the instance's RAM role (named by
 * CLOUDB_METADATA_ROLE or the first one listed) and its rotating STS credentials, cached until
 * five minutes before they expire.
 */
import { InvalidInput } from '../domain-errors';
import { CloudError } from '../cloud-common/cloud-error';
import { jsonOf, send } from '../cloud-common/http-client';
import type { Endpoints } from './settings';
import type { AccessCredentials } from './sign-request';

const PATH = '/latest/meta-data/ram/security-credentials/';
let cached: { key: string; creds: AccessCredentials; until: number } | undefined;

async function get(e: Endpoints, path: string): Promise<string> {
  const res = await send({ method: 'GET', url: e.metadata + path, timeoutMs: e.metadataTimeoutMs, ...(e.ca ? { ca: e.ca } : {}) }).catch(
    (err: unknown) => {
      throw new InvalidInput('no credentials: none configured, and the instance metadata service could not be reached', { cause: err });
    },
  );
  if (res.status !== 200)
    throw new InvalidInput(`no credentials: none configured, and the instance metadata service answered ${res.status}`);
  return res.text;
}

export async function metadataCredentials(e: Endpoints): Promise<AccessCredentials> {
  const key = `${e.metadata}|${e.metadataRole}`;
  if (cached?.key === key && cached.until > Date.now()) return cached.creds;
  const role = e.metadataRole || (await get(e, PATH)).split('\n')[0]?.trim() || '';
  if (!/^[\w.@-]{1,64}$/.test(role)) throw new InvalidInput('no credentials: the instance has no RAM role');
  const body = jsonOf(await get(e, PATH + role)) as Record<string, unknown> | undefined;
  const ok = body && body.Code === 'Success' && typeof body.AccessKeyId === 'string' && typeof body.AccessKeySecret === 'string';
  if (!ok) throw new CloudError('invalid', 200, 'the instance metadata service answered without credentials');
  const creds = {
    accessKeyId: body.AccessKeyId as string,
    accessKeySecret: body.AccessKeySecret as string,
    ...(typeof body.SecurityToken === 'string' ? { securityToken: body.SecurityToken } : {}),
  };
  const expires = Date.parse(String(body.Expiration ?? ''));
  cached = { key, creds, until: (Number.isNaN(expires) ? Date.now() + 600_000 : expires) - 300_000 };
  return creds;
}

export function forgetMetadataCredentials(): void {
  cached = undefined;
}
