/**
 * sys/mounts/<path> and sys/mounts/<path>/tune, read in the reference server's shapes (the data
 * also at the top level, as the reference answers sys/mounts/*). Mounts are deployed as code
 * (infra/mounts.json), so enabling, disabling and tuning through the API are refused with 405.
 */
import { createHash } from 'node:crypto';
import type { Mount } from '../../config';
import { BadRequest, HttpError } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';

/** A mount as the reference lists it; accessor and uuid are derived from the path, so stable. */
export function mountInfo(m: Mount): Record<string, unknown> {
  const id = createHash('sha256').update(`mount:${m.path}`).digest('hex');
  return {
    accessor: `${m.type}_${id.slice(0, 8)}`,
    config: { default_lease_ttl: m.defaultLeaseTtl, max_lease_ttl: m.maxLeaseTtl, force_no_cache: false, ...auditKeys(m) },
    description: m.description,
    external_entropy_access: false,
    local: false,
    options: m.options ?? null,
    plugin_version: '',
    running_plugin_version: '',
    running_sha256: '',
    seal_wrap: false,
    type: m.type,
    uuid: `${id.slice(8, 16)}-${id.slice(16, 20)}-${id.slice(20, 24)}-${id.slice(24, 28)}-${id.slice(28, 40)}`,
  };
}

/** The mount's audit non-HMAC keys, in the reference's tune names, when set. */
const auditKeys = (m: Mount) => ({
  ...(m.auditClearRequestKeys ? { audit_non_hmac_request_keys: m.auditClearRequestKeys } : {}),
  ...(m.auditClearResponseKeys ? { audit_non_hmac_response_keys: m.auditClearResponseKeys } : {}),
});

function mountOf(req: Req<typeof fields>): Mount {
  const path = req.data.path.replace(/\/+$/, '');
  const m = req.deps.mounts.find((x) => x.path === path);
  if (!m) throw new BadRequest(`no secret engine mount at "${path}/"`);
  return m;
}

const deployed = async (): Promise<never> => {
  throw new HttpError(405, ['mounts are deployed as code (infra/mounts.json): they cannot be enabled, disabled or tuned through the API']);
};

const fields = { path: f.pathParam({ description: 'the mount path, e.g. pki' }) };

export const mountPaths = [
  definePath({
    pattern: 'mounts/:path',
    fields,
    help: 'Read one mount. Mounts are deployed as code: enabling and disabling are refused (405).',
    operations: {
      read: async (req) => ({ data: mountInfo(mountOf(req)), topLevelData: true }),
      write: deployed,
      delete: deployed,
    },
  }),
  definePath({
    pattern: 'mounts/:path/tune',
    fields,
    help: "Read a mount's lease settings. Mounts are deployed as code: tuning is refused (405).",
    operations: {
      read: async (req) => {
        const m = mountOf(req);
        const data = {
          default_lease_ttl: m.defaultLeaseTtl,
          max_lease_ttl: m.maxLeaseTtl,
          force_no_cache: false,
          description: m.description,
          options: m.options ?? null,
          ...auditKeys(m),
        };
        return { data, topLevelData: true };
      },
      write: deployed,
    },
  }),
];
