/**
 * sys/auth: the auth method mounts, in the reference server's shapes. They are deployed as code
 * (the `auth` section of infra/mounts.json), so enabling, disabling and tuning are refused (405).
 */
import { createHash } from 'node:crypto';
import { AUTH_MOUNTS, TOKEN_AUTH_ACCESSOR } from '../../auth-mounts';
import { SYSTEM_DEFAULT_LEASE_TTL, SYSTEM_MAX_LEASE_TTL } from '../../config';
import { HttpError, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';

interface Listed {
  path: string;
  type: string;
  accessor: string;
  description: string;
  defaultLeaseTtl: number;
  maxLeaseTtl: number;
}

const TOKEN: Listed = {
  path: 'auth/token',
  type: 'token',
  accessor: TOKEN_AUTH_ACCESSOR,
  description: 'token based credentials',
  defaultLeaseTtl: SYSTEM_DEFAULT_LEASE_TTL,
  maxLeaseTtl: SYSTEM_MAX_LEASE_TTL,
};

const all = (): Listed[] => [TOKEN, ...AUTH_MOUNTS];

/** Every auth mount as sys/auth lists it, by its path under /v1/ with a slash (`auth/approle/`). */
export const authMountInfos = (): { path: string; info: Record<string, unknown> }[] =>
  all().map((m) => ({ path: `${m.path}/`, info: info(m) }));

function info(m: Listed): Record<string, unknown> {
  const id = createHash('sha256').update(`auth:${m.path}`).digest('hex');
  return {
    accessor: m.accessor,
    config: { default_lease_ttl: m.defaultLeaseTtl, max_lease_ttl: m.maxLeaseTtl, force_no_cache: false, token_type: 'default-service' },
    description: m.description,
    external_entropy_access: false,
    local: false,
    options: null,
    plugin_version: '',
    seal_wrap: false,
    type: m.type,
    uuid: `${id.slice(8, 16)}-${id.slice(16, 20)}-${id.slice(20, 24)}-${id.slice(24, 28)}-${id.slice(28, 40)}`,
  };
}

function find(raw: string): Listed {
  const path = `auth/${raw.replace(/^\/+|\/+$/g, '')}`;
  const m = all().find((x) => x.path === path);
  if (!m) throw new NotFound(`no auth mount at "${path.slice(0, 100)}"`);
  return m;
}

const asCode = async (): Promise<never> => {
  throw new HttpError(405, [
    'auth methods are deployed as code (infra/mounts.json): they cannot be enabled, disabled or tuned through the API',
  ]);
};

const fields = { path: f.pathParam({ description: 'the auth mount path, e.g. approle' }) };

export const authMountPaths = [
  definePath({
    pattern: 'auth',
    fields: {},
    help: 'List the auth method mounts.',
    operations: {
      read: async () => ({ data: Object.fromEntries(all().map((m) => [`${m.path.slice(5)}/`, info(m)])), topLevelData: true }),
    },
  }),
  definePath({
    pattern: 'auth/:path/tune',
    fields,
    help: "An auth mount's settings (tuning is refused: deployed as code).",
    sudo: ['write'],
    operations: {
      read: async (req) => {
        const m = find(req.data.path);
        return {
          data: {
            default_lease_ttl: m.defaultLeaseTtl,
            max_lease_ttl: m.maxLeaseTtl,
            force_no_cache: false,
            description: m.description,
            token_type: 'default-service',
          },
          topLevelData: true,
        };
      },
      write: asCode,
    },
  }),
  definePath({
    pattern: 'auth/:path',
    fields,
    help: 'One auth mount (enabling and disabling are refused: deployed as code).',
    sudo: ['write', 'delete'],
    operations: {
      read: async (req) => ({ data: info(find(req.data.path)), topLevelData: true }),
      write: asCode,
      delete: asCode,
    },
  }),
];
