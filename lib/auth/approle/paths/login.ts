/** login {role_id, secret_id}: the role's checks, one use of the secret id spent, a token issued. */
import { BadRequest } from '../../../errors';
import { f } from '../../../http/fields';
import { definePath, type Req, type Result } from '../../../http/path';
import { unmapped } from '../../../sys/token-principal';
import { countedLogin, issueLoginToken } from '../../login';
import type { AuthMount } from '../../../auth-mounts';
import { loginRecords } from '../roles';
import { checkAddress, spendSecretId } from '../secret-ids';
import { approleStore } from './role-access';

const loginFields = {
  role_id: f.string({ description: 'the role id' }),
  secret_id: f.string({ description: 'a secret id of the role (when the role binds them)' }),
};

export const loginPath = (mount: AuthMount) =>
  definePath({
    pattern: 'login',
    fields: loginFields,
    help: "Log in with a role id and a secret id: the token gets the role's token settings.",
    unauthenticated: ['write'],
    operations: {
      write: (req) => countedLogin(mount.type, () => logIn(req, mount)),
    },
  });

async function logIn(req: Req<typeof loginFields>, mount: AuthMount): Promise<Result> {
  const roleId = (req.data.role_id ?? '').trim();
  if (!roleId) throw new BadRequest('missing role_id');
  const store = approleStore(req);
  const secretId = (req.data.secret_id ?? '').trim();
  // The role and (when its role id's claim knows the uid) the secret id, read together.
  const { name, role, secret } = await loginRecords(store, roleId, secretId || undefined);
  const address = req.remoteAddress === undefined ? undefined : unmapped(req.remoteAddress);
  checkAddress(role.secretIdBoundCidrs, address, 'the role');
  const metadata: Record<string, string> = {};
  let boundCidrs = role.token.boundCidrs;
  if (role.bindSecretId) {
    if (!secretId) throw new BadRequest('missing secret_id');
    const entry = await spendSecretId(store, role, secretId, { now: req.deps.now(), address }, secret);
    Object.assign(metadata, entry.metadata);
    if (entry.tokenBoundCidrs.length) boundCidrs = entry.tokenBoundCidrs;
  }
  metadata.role_name = name;
  return issueLoginToken(req, mount, {
    settings: { ...role.token, boundCidrs },
    displayName: '',
    metadata,
    alias: { name: role.roleId, metadata },
  });
}
