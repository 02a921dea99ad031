/** An answer printed as the flags ask: `-field`, else the format; a 204 as a success line. */
import type { Envelope, Json } from '../client/client';
import { str } from './args';
import { fieldOf, formatOf, printField, printSecret } from './format';
import type { Call } from './kit';
import { UsageError } from './args';

export function printAnswer(c: Call, e: Envelope | undefined, success: string, data?: Json): number {
  const format = formatOf(str(c.p, 'format'), c.io.env);
  const field = str(c.p, 'field');
  if (!e) {
    if (field) throw new UsageError(`field "${field}" not present in secret (the answer was empty)`);
    c.io.stdout.write(`${success}\n`);
    return 0;
  }
  if (field) printField(c.io, fieldOf(e, field, data ?? e.data), format);
  else printSecret(c.io, e, format === 'raw' ? 'json' : format);
  return 0;
}
