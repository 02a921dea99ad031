/**
 * Structured JSON logs, one line per event. Callers pass only safe fields: never a token,
 * secret, private key, OTP or request body.
 */
type Level = 'silent' | 'info' | 'debug';

let level: Level = process.env.LOG_LEVEL === 'silent' || process.env.LOG_LEVEL === 'debug' ? process.env.LOG_LEVEL : 'info';

export function setLogLevel(l: Level): void {
  level = l;
}

export function logInfo(event: string, fields: Record<string, unknown>): void {
  if (level === 'silent') return;
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), level: 'info', event, ...fields }) + '\n');
}

/** Logs a fault with its cause: name, message and stack of our own errors only. */
export function logError(event: string, fields: Record<string, unknown>, cause: unknown): void {
  if (level === 'silent') return;
  const err =
    cause instanceof Error
      ? { name: cause.name, message: cause.message, stack: cause.stack?.split('\n').slice(0, 8).join('\n') }
      : { message: String(cause) };
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: 'error', event, ...fields, error: err }) + '\n');
}
