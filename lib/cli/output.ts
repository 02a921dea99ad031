/** An answer printed as the flags ask: `-field`, else the format; a 204 as a success line. */
import type { Envelope, Json } from '../client/client';
import { str } from './args';
import { fieldOf, formatOf, printField, printSecret } from './format';
import type { Call } from './kit';
import { UsageError } from './args';

const EMPTY: Envelope = { lease_id: '', renewable: false, lease_duration: 0, data: {}, warnings: null, auth: null };

export function printAnswer(c: Call, e: Envelope | undefined, success: string, data?: Json): number {
  const format = formatOf(str(c.p, 'format'), c.io.env);
  const field = str(c.p, 'field');
  if (!e) {
    if (field) throw new UsageError(`field "${field}" not present in secret (the answer was empty)`);
    c.io.stdout.write(`${success}\n`);
    return 0;
  }
  // An answer outside the envelope (sys/health, sys/seal-status, sys/leader): its fields are the data.
  const bare = !('data' in e) && !('auth' in e);
  if (field) printField(c.io, fieldOf(e, field, data ?? (bare ? (e as unknown as Json) : e.data)), format);
  else if (bare && format === 'table') printSecret(c.io, { ...EMPTY, data: e as unknown as Json }, format);
  else printSecret(c.io, e, format === 'raw' ? 'json' : format);
  return 0;
}
