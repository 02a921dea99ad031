/** auth/<jwt>/login {role, jwt}: unauthenticated; a verified token gets a Latchkey token. */
import { caseKeptRoleName } from '../../role-name';
import { InvalidInput } from '../../../domain-errors';
import { BadRequest, PermissionDenied } from '../../../errors';
import { f } from '../../../http/fields';
import { definePath } from '../../../http/path';
import { ipInBlocks } from '../../../net/cidr';
import { issueLoginToken } from '../../login';
import type { AuthMount } from '../../../auth-mounts';
import { keySourceOf } from '../config';
import { JwtStore } from '../jwt-store';
import { cachedVerifier } from '../keys';
import { authenticate } from '../login';

export function loginPaths(mount: AuthMount) {
  return [
    definePath({
      pattern: 'login',
      fields: {
        role: f.string({ description: 'the role to log in with (default: the config default_role)' }),
        jwt: f.string({ description: 'the signed JWT (compact JWS)' }),
        distributed_claim_access_token: f.string({ description: 'not supported (Azure distributed groups): refused when set' }),
      },
      help: 'Log in with a signed JWT (a GitHub Actions OIDC token, a Kubernetes service-account token…).',
      unauthenticated: ['write'],
      operations: {
        write: async (req) => {
          const d = req.data;
          if (d.distributed_claim_access_token) throw new BadRequest('distributed_claim_access_token is not supported');
          const store = new JwtStore(req.part);
          const config = await store.config();
          if (!config) throw new BadRequest('could not load configuration');
          const named = d.role || config.defaultRole;
          if (!named) throw new BadRequest('missing role');
          const roleName = caseKeptRoleName(named.trim());
          const role = await store.role(roleName);
          if (!role) throw new BadRequest(`role "${roleName.slice(0, 128)}" could not be found`);
          if (!d.jwt) throw new BadRequest('missing token');
          if (role.token.boundCidrs.length && !(req.remoteAddress && ipInBlocks(req.remoteAddress, role.token.boundCidrs))) {
            throw new PermissionDenied();
          }
          const verifier = cachedVerifier(req.part.name, keySourceOf(config));
          let identity;
          try {
            identity = await authenticate(d.jwt, roleName, role, config, verifier, Math.floor(req.deps.now() / 1000));
          } catch (e) {
            if (e instanceof InvalidInput) throw new BadRequest(e.message);
            throw e;
          }
          return issueLoginToken(req, mount, {
            settings: role.token,
            displayName: identity.name,
            metadata: identity.metadata,
            alias: { name: identity.name, metadata: identity.metadata },
          });
        },
      },
    }),
  ];
}
