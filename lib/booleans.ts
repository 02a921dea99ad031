/** Booleans as the reference server reads them: true/false, 1/0, and Go's ParseBool spellings. */
const TRUE = new Set(['true', '1', 't', 'T', 'TRUE', 'True']);
const FALSE = new Set(['false', '0', 'f', 'F', 'FALSE', 'False', '']);

/** The boolean `input` spells, or undefined when it spells none. */
export function parseBool(input: unknown): boolean | undefined {
  if (typeof input === 'boolean') return input;
  if (input === 0 || input === 1) return input === 1;
  if (typeof input !== 'string') return undefined;
  if (TRUE.has(input)) return true;
  return FALSE.has(input) ? false : undefined;
}
