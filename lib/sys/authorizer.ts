/** Token + policy check for every authenticated operation of every function. */
import { PermissionDenied } from '../errors';
import type { Authorizer, Principal } from '../http/auth';
import type { OpName } from '../http/path';
import type { Policies } from './policies';
import { allows, capabilitiesFor } from './policy-rules';
import type { Tokens } from './tokens';

export class TokenAuthorizer implements Authorizer {
  constructor(
    private readonly tokens: Tokens,
    private readonly policies: Policies,
  ) {}

  async authorize(token: string | undefined, path: string, op: OpName, sudo: boolean): Promise<Principal> {
    if (!token) throw new PermissionDenied('permission denied: missing client token');
    const found = await this.tokens.lookup(token);
    if (!found) throw new PermissionDenied('permission denied: invalid or expired token');
    const { record } = found;
    if (!record.policies.includes('root')) {
      const rules = await this.policies.rules(record.policies);
      if (!allows(capabilitiesFor(rules, path), op, sudo)) throw new PermissionDenied();
    }
    // Concurrent requests may have taken the last uses first.
    if (!(await this.tokens.use(record, found.version))) throw new PermissionDenied('permission denied: invalid or expired token');
    return { accessor: record.accessor, policies: record.policies, displayName: record.display_name };
  }
}
