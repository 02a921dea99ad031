/** `config`: write (merging with what is stored), read without the secret, delete. */
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';
import { BadRequest, NotFound } from '../../errors';
import type { EnvReader } from '../../cloud-common/env-settings';
import { cloudAStore } from '../cloud-a-store';
import { DEFAULT_ROOT_PASSWORD_TTL, sealSecret, type StoredConfig } from '../config';
import { cloudOf } from '../environments';

const ID = /^[A-Za-z0-9._-]{0,128}$/;

const fields = {
  subscription_id: f.string({ description: 'Subscription id (or CLOUDA_SUBSCRIPTION_ID).' }),
  tenant_id: f.string({ description: 'Tenant id (or CLOUDA_TENANT_ID).' }),
  client_id: f.string({ description: 'OAuth2 client id (or CLOUDA_CLIENT_ID).' }),
  client_secret: f.string({ description: 'OAuth2 client secret (or CLOUDA_CLIENT_SECRET); never read back.' }),
  environment: f.string({
    description: 'The cloud: AzurePublicCloud (default), AzureUSGovernmentCloud, AzureChinaCloud, AzureGermanCloud.',
  }),
  password_policy: f.string({ description: 'Accepted for compatibility; the graph generates client secrets.' }),
  use_vendor_graph_api: f.bool({ description: 'Must be true: the older directory API is gone.' }),
  root_password_ttl: f.duration({ description: 'Validity of root passwords made by rotate-root (default 182d).' }),
};
type Data = Req<typeof fields>['data'];

function checkInput(d: Data): void {
  for (const k of ['subscription_id', 'tenant_id', 'client_id'] as const) {
    if (d[k] !== undefined && !ID.test(d[k])) throw new BadRequest(`field "${k}": expected an identifier (letters, digits, ".", "_", "-")`);
  }
  if (d.environment) cloudOf(d.environment);
  if (d.use_vendor_graph_api === false)
    throw new BadRequest('use_vendor_graph_api=false is not supported: the older directory API was retired');
  if (d.client_secret !== undefined && d.client_secret.length > 1024) throw new BadRequest('client_secret is too long');
  if (d.password_policy !== undefined && d.password_policy.length > 128) throw new BadRequest('password_policy is too long');
}

async function write(req: Req<typeof fields>, readEnv: EnvReader): Promise<void> {
  const d = req.data;
  checkInput(d);
  const secret = d.client_secret ? await sealSecret(req.deps, req.part, d.client_secret) : undefined;
  const env = readEnv();
  await cloudAStore(req.part).changeConfig((cur) => {
    const next: StoredConfig = {
      subscriptionId: d.subscription_id ?? cur?.subscriptionId ?? '',
      tenantId: d.tenant_id ?? cur?.tenantId ?? '',
      clientId: d.client_id ?? cur?.clientId ?? '',
      clientSecret: d.client_secret === undefined ? (cur?.clientSecret ?? null) : (secret ?? null),
      environment: d.environment ?? cur?.environment ?? '',
      passwordPolicy: d.password_policy ?? cur?.passwordPolicy ?? '',
      useVendorGraphApi: true,
      rootPasswordTtl: d.root_password_ttl || cur?.rootPasswordTtl || DEFAULT_ROOT_PASSWORD_TTL,
      pending: cur?.pending ?? null,
    };
    if (!next.subscriptionId && !env.CLOUDA_SUBSCRIPTION_ID) throw new BadRequest('missing required field "subscription_id"');
    if (!next.tenantId && !env.CLOUDA_TENANT_ID) throw new BadRequest('missing required field "tenant_id"');
    return next;
  });
}

async function read(req: Req<typeof fields>) {
  const v = await cloudAStore(req.part).config();
  if (!v) throw new NotFound();
  return {
    data: {
      subscription_id: v.subscriptionId,
      tenant_id: v.tenantId,
      client_id: v.clientId,
      environment: v.environment,
      password_policy: v.passwordPolicy,
      use_vendor_graph_api: true,
      root_password_ttl: v.rootPasswordTtl,
    },
  };
}

export const configPaths = (readEnv: EnvReader) => [
  definePath({
    pattern: 'config',
    fields,
    help: 'Configure the credentials the engine uses to reach the directory.',
    operations: {
      write: (req) => write(req, readEnv),
      read,
      delete: async (req) => {
        await cloudAStore(req.part).deleteConfig();
      },
    },
  }),
];
