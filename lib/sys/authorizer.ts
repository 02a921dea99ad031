/** Token + policy check for every authenticated operation of every function. */
import { Forbidden } from '../domain-errors';
import type { Policies } from './policies';
import { allows } from './acl';
import type { TokenRecord, Tokens } from './tokens';
import type { AccessRequest, Authorizer, Principal } from '../types';
import { checkBoundCidrs, principalOf } from './token-principal';

export class TokenAuthorizer implements Authorizer {
  constructor(
    private readonly tokens: Tokens,
    private readonly policies: Policies,
  ) {}

  async authorize(req: AccessRequest): Promise<Principal> {
    if (!req.token) throw new Forbidden('permission denied: missing client token');
    const root = (r: TokenRecord) => r.policies.includes('root');
    // The token, then its accessor items and its policies together: two round trips at most.
    const found = await this.tokens.lookup(req.token, (r) => (root(r) ? [] : this.policies.prefetchKeys(r.policies)));
    if (!found) throw new Forbidden('permission denied: invalid or expired token');
    const { record } = found;
    checkBoundCidrs(record, req.remoteAddress);
    if (!root(record)) await this.check(record.policies, req, found.read);
    // Concurrent requests may have taken the last uses first.
    if (!(await this.tokens.use(record, found.version))) throw new Forbidden('permission denied: invalid or expired token');
    const principal = principalOf(record);
    principal.liveAs = found.chain;
    if (record.num_uses === 1) principal.snapshot = { ...record, num_uses: 0 };
    else principal.record = record.num_uses ? { ...record, num_uses: record.num_uses - 1 } : record;
    return principal;
  }

  /**
   * The request, let in already, checked again as another operation (a write that found its item
   * created or deleted meanwhile) on the policies that let it in: the token's use is not counted again.
   */
  async recheck(principal: Principal, req: AccessRequest): Promise<void> {
    if (!principal.policies.includes('root')) await this.check(principal.policies, req);
  }

  private async check(policies: string[], req: AccessRequest, read?: Parameters<Policies['rules']>[1]): Promise<void> {
    const op = await req.op;
    const acl = await this.policies.rules(policies, read);
    if (!allows(acl.permissions(req.path, op === 'list'), op, req.sudo, req.params)) throw new Forbidden();
    if (req.listing && acl.permissions(req.listing, true)?.capabilities.has('deny')) throw new Forbidden();
  }
}
