/** Input quoted back in an error message only when it is short and plain (never a pasted key or blob). */
const PLAIN = /^[\w.:@%*/+,=-]{1,64}$/;

/** ` "value"` (with a leading space), or nothing. */
export function echo(value: string): string {
  return PLAIN.test(value) ? ` "${value}"` : '';
}

/** The value itself, or `placeholder`, for lists in messages. */
export function plain(value: string, placeholder = '(not shown)'): string {
  return PLAIN.test(value) ? value : placeholder;
}
