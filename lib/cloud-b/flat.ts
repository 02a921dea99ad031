/** Cloud-B answers with flat JSON objects, not the envelope (errors keep `{"errors":[...]}`). */
import type { Result } from '../http/path';

export function flat(value: Record<string, unknown>, status = 200): Result {
  return { raw: { body: JSON.stringify(value), contentType: 'application/json', status } };
}
