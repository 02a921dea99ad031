/**
 * sys/internal/ui/mounts and sys/internal/ui/mounts/<path>: the mounts a token can reach, and the
 * mount holding a path (what `vault kv` asks first to learn a KV mount's version, and hvac's
 * KV helpers). Vault serves both without the ACL on their own path and decides by the caller's
 * access to each mount (any capability at or under the mount's path); here a token is required
 * (Latchkey's unauthenticated paths are exactly sys/health and sys/seal-status), and an explicit
 * deny on the sys path is honoured besides. A path under no mount, or a mount the token cannot
 * reach, is 403 with Vault's words, so the path cannot be used to discover mounts; `vault kv`
 * then stops with that error instead of guessing a version.
 */
import { PermissionDenied } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type ReqContext } from '../../http/path';
import type { Acl } from '../acl';
import { callerPolicies } from '../capabilities';
import { authMountInfos } from './auth-mounts';
import { mountInfo } from './mounts';

/** The caller's rules, or undefined for a root token (which reaches every mount). */
async function callerAcl(req: ReqContext, sysPath: string): Promise<Acl | undefined> {
  const policies = await callerPolicies(req.deps, req.token, req.remoteAddress);
  if (policies.includes('root')) return undefined;
  const acl = await req.deps.policies.rules(policies);
  if (acl.permissions(sysPath)?.capabilities.has('deny')) throw new PermissionDenied();
  return acl;
}

const reaches = (acl: Acl | undefined, prefix: string): boolean => !acl || acl.grantsUnder(prefix);

/** Secret and auth mounts by their path under /v1/ with a slash, each with its sys/mounts entry. */
function allMounts(req: ReqContext): { path: string; table: 'secret' | 'auth'; info: Record<string, unknown> }[] {
  return [
    ...req.deps.mounts.map((m) => ({ path: `${m.path}/`, table: 'secret' as const, info: mountInfo(m) })),
    ...authMountInfos().map((m) => ({ ...m, table: 'auth' as const })),
  ];
}

const denied = (path: string) =>
  new PermissionDenied(`preflight capability check returned 403, please ensure client's policies grant access to path "${path}"`);

export const uiMountPaths = [
  definePath({
    pattern: 'internal/ui/mounts',
    fields: {},
    help: 'The secret and auth mounts the calling token can reach (any capability at or under the mount), with their sys/mounts entries.',
    unauthenticated: ['read'],
    handlerChecksToken: true,
    operations: {
      read: async (req) => {
        const acl = await callerAcl(req, 'sys/internal/ui/mounts');
        const data: Record<'secret' | 'auth', Record<string, unknown>> = { secret: {}, auth: {} };
        for (const m of allMounts(req))
          if (reaches(acl, m.path)) data[m.table][m.table === 'auth' ? m.path.slice('auth/'.length) : m.path] = m.info;
        return { data };
      },
    },
  }),
  definePath({
    pattern: 'internal/ui/mounts/*path',
    fields: { path: f.pathParam({ description: 'a mount path, or any path under a mount (the mount holding it answers)' }) },
    help: 'The mount holding a path (longest prefix), with its sys/mounts entry and `path`; 403 when the token cannot reach it or no mount holds it.',
    unauthenticated: ['read'],
    handlerChecksToken: true,
    operations: {
      read: async (req) => {
        const asked = `${req.data.path.replace(/^\/+|\/+$/g, '')}/`;
        const acl = await callerAcl(req, `sys/internal/ui/mounts/${asked.slice(0, -1)}`);
        const held = allMounts(req)
          .filter((m) => asked.startsWith(m.path))
          .reduce<ReturnType<typeof allMounts>[number] | undefined>((a, b) => (!a || b.path.length > a.path.length ? b : a), undefined);
        if (!held || !reaches(acl, held.path)) throw denied(asked.slice(0, 200));
        return { data: { ...held.info, path: held.table === 'auth' ? held.path.slice('auth/'.length) : held.path } };
      },
    },
  }),
];
