/**
 * A login by method: `token` checks the token with lookup-self; `aws` signs
 * sts:GetCallerIdentity with the standard AWS credential chain (lib/client/aws-login.ts); every
 * other method (approle, jwt, …) posts its fields to `auth/<mount>/login`. Answers the auth.
 */
import type { Auth, Json, LatchkeyClient } from '../client/client';
import { ClientError } from '../client/client';
import { UsageError } from './args';

/** Checks a token: its lookup-self, as an Auth. */
async function tokenLogin(client: LatchkeyClient, token: string): Promise<Auth> {
  const r = await client.request('GET', 'auth/token/lookup-self', { headers: { 'x-vault-token': token } });
  const d = (r.json?.data ?? {}) as Json;
  if (!r.json?.data) throw new ClientError('GET', 'auth/token/lookup-self', r.status, ['the token lookup answered no data']);
  return {
    client_token: token,
    accessor: String(d.accessor ?? ''),
    policies: (d.policies as string[]) ?? [],
    token_policies: (d.policies as string[]) ?? [],
    lease_duration: Number(d.ttl ?? 0),
    renewable: Boolean(d.renewable),
    metadata: (d.meta as Record<string, string> | null) ?? null,
  };
}

export async function login(client: LatchkeyClient, method: string, mount: string, fields: Json): Promise<Auth> {
  if (method === 'token') {
    const token = fields.token as unknown;
    if (typeof token !== 'string' || !token)
      throw new UsageError('login -method=token needs a token: latchkey login TOKEN, token=TOKEN or token=-');
    return tokenLogin(client, token.trim());
  }
  if (method === 'aws') {
    const { role, header_value, region, ...other } = fields as Record<string, unknown>;
    if (Object.keys(other).length)
      throw new UsageError(`login -method=aws takes role, header_value and region, not ${Object.keys(other).join(', ')}`);
    // Loaded when used: the AWS SDK's credential chain is the CLI's largest part.
    const { awsLoginFields } = await import('../client/aws-login');
    const signed = await awsLoginFields({
      ...(typeof header_value === 'string' && header_value ? { serverId: header_value } : {}),
      ...(typeof region === 'string' && region ? { region } : {}),
    });
    return client.login(mount, { ...(typeof role === 'string' && role ? { role } : {}), ...signed });
  }
  return client.login(mount, fields);
}
