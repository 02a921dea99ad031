/** auth/<jwt>/login {role, jwt}: unauthenticated; a verified token gets a Latchkey token. */
import { caseKeptRoleName } from '../../role-name';
import { InvalidInput } from '../../../domain-errors';
import { BadRequest, PermissionDenied } from '../../../errors';
import { f } from '../../../http/fields';
import { definePath, type Req, type Result } from '../../../http/path';
import { ipInBlocks } from '../../../net/cidr';
import { countedLogin, issueLoginToken } from '../../login';
import type { AuthMount } from '../../../auth-mounts';
import { keySourceOf } from '../config';
import { JwtStore } from '../jwt-store';
import { cachedVerifier } from '../keys';
import { authenticate } from '../login';

const loginFields = {
  role: f.string({ description: 'the role to log in with (default: the config default_role)' }),
  jwt: f.string({ description: 'the signed JWT (compact JWS)' }),
  distributed_claim_access_token: f.string({ description: 'not supported (Azure distributed groups): refused when set' }),
};

export function loginPaths(mount: AuthMount) {
  return [
    definePath({
      pattern: 'login',
      fields: loginFields,
      help: 'Log in with a signed JWT (a GitHub Actions OIDC token, a Kubernetes service-account token…).',
      unauthenticated: ['write'],
      operations: { write: (req) => countedLogin(mount.type, () => logIn(req, mount)) },
    }),
  ];
}

/** The login: the config and the role, the caller's address, the token verified, then a Latchkey token. */
async function logIn(req: Req<typeof loginFields>, mount: AuthMount): Promise<Result> {
  const d = req.data;
  if (d.distributed_claim_access_token) throw new BadRequest('distributed_claim_access_token is not supported');
  const store = new JwtStore(req.part);
  const config = await store.config();
  if (!config) throw new BadRequest('could not load configuration');
  const { roleName, role } = await loginRole(store, d.role || config.defaultRole);
  const jwt = d.jwt;
  if (!jwt) throw new BadRequest('missing token');
  if (role.token.boundCidrs.length && !(req.remoteAddress && ipInBlocks(req.remoteAddress, role.token.boundCidrs))) {
    throw new PermissionDenied();
  }
  const verifier = cachedVerifier(req.part.name, keySourceOf(config));
  const identity = await refusalAsBadRequest(authenticate(jwt, roleName, role, config, verifier, Math.floor(req.deps.now() / 1000)));
  return issueLoginToken(req, mount, {
    settings: role.token,
    displayName: identity.name,
    metadata: identity.metadata,
    alias: { name: identity.name, metadata: identity.metadata },
  });
}

/** The role named by the request (or the config's default_role); a missing or unknown one is a 400. */
async function loginRole(store: JwtStore, named: string | undefined) {
  if (!named) throw new BadRequest('missing role');
  const roleName = caseKeptRoleName(named.trim());
  const role = await store.role(roleName);
  if (!role) throw new BadRequest(`role "${roleName.slice(0, 128)}" could not be found`);
  return { roleName, role };
}

/** The verification's answer; a token refused as invalid input is a 400 with the same message. */
async function refusalAsBadRequest<T>(verification: Promise<T>): Promise<T> {
  try {
    return await verification;
  } catch (e) {
    if (e instanceof InvalidInput) throw new BadRequest(e.message);
    throw e;
  }
}
