/**
 * Step 3: the input, checked. The errors decode kept (a malformed body, a field of the wrong
 * type, a missing required field) are thrown now that the caller is authorised; otherwise the
 * handler's data is the coerced fields, and parameters no field takes make the envelope's
 * warning, unless the path takes arbitrary input.
 */
import { ignoredWarning } from '../input';
import type { Call } from './call';

export function validate(call: Call): void {
  const fields = call.fields;
  if (!fields) throw new Error('validate before decode');
  if ('error' in fields) throw fields.error;
  call.data = fields.data;
  const warning = call.spec.takesArbitraryInput ? undefined : ignoredWarning(fields.ignored);
  if (warning) call.ignoredWarning = warning;
}
