/**
 * A write's create or update, held to what the handler finds when it writes. The existence
 * check decides the operation before the handler runs (as Vault's does); a handler that writes
 * conditionally learns whether the item exists when it writes, and reports it here. When that
 * differs, the caller's policies are checked again for the other operation, so a token allowed
 * only `update` never creates an item, nor one allowed only `create` replaces one, however the
 * item changed between the check and the write.
 */
import type { ReqContext } from '../path';
import type { Call } from './call';

export function existenceOf(call: Call): ReqContext['existence'] {
  const { decided, principal, access } = call;
  if (call.op !== 'write' || !call.spec.exists || !principal || !access || (decided !== 'create' && decided !== 'update')) return undefined;
  return {
    found: decided === 'update',
    async confirm(exists) {
      const op = exists ? 'update' : 'create';
      if (op === call.decided) return;
      // The response record names the operation checked, allowed or refused.
      call.decided = op;
      call.audit.request.operation = op;
      await call.deps.authorizer.recheck(principal, { ...access, op });
    },
  };
}
