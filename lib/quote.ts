/** Input quoted back in an error message only when it is short and plain (never a pasted key or blob). */
const PLAIN = /^[\w.:@%*/+,=-]{1,64}$/;

/** ` "value"` (with a leading space) when the value is plain, or nothing. */
export function quoted(value: string): string {
  return PLAIN.test(value) ? ` "${value}"` : '';
}

/** The value itself when it is plain, or `placeholder`, for lists in messages. */
export function plainOr(value: string, placeholder = '(not shown)'): string {
  return PLAIN.test(value) ? value : placeholder;
}
