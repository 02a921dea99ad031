/**
 * Engine settings from environment variables (deployment configuration): endpoint overrides,
 * an extra CA, time-outs. The engines take a reader so tests can give their own environment.
 */
export type EnvReader = () => Record<string, string | undefined>;

export const processEnv: EnvReader = () => process.env;

/** A configured endpoint URL without its trailing slash, or the default. */
export function endpoint(env: Record<string, string | undefined>, name: string, fallback: string): string {
  const v = env[name]?.trim();
  return (v || fallback).replace(/\/+$/, '');
}

export function positiveInt(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const n = Number(env[name]);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}
