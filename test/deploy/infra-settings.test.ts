/**
 * infra/settings.json as the generators read it: reserved concurrency per function and managed
 * PKI keys (granted to pki and pki-tidy only, on exactly their ARNs), and refusals that name the
 * setting at packaging time rather than a failed deploy.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { parseSettings } = require('../../infra/settings.cjs') as { parseSettings: (raw: unknown) => Settings };
const { buildFunctions } = require('../../infra/functions.cjs') as {
  buildFunctions: (
    mounts?: unknown,
    exists?: unknown,
    settings?: Settings,
  ) => Record<string, { role: string; reservedConcurrency?: number; environment?: Record<string, unknown> }>;
};
const { statementsFor } = require('../../infra/iam.cjs') as {
  statementsFor: (name: string, arns: unknown, settings: Settings, invoked?: string[]) => { Action: string[]; Resource: unknown[] }[];
};
interface Settings {
  throttle: { rateLimit: number; burstLimit: number };
  reservedConcurrency: Record<string, number>;
  managedKeys: Record<string, { key_id: string }>;
}

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const ARNS = { table: 'table', index: 'index', key: 'key' };

describe('infra/settings.json', () => {
  it('defaults to 50 requests/s with bursts of 100, nothing reserved, no managed keys', () => {
    expect(parseSettings({})).toMatchObject({ throttle: { rateLimit: 50, burstLimit: 100 }, reservedConcurrency: {}, managedKeys: {} });
  });

  it('reserves concurrency for the functions named', () => {
    const fns = buildFunctions(undefined, undefined, parseSettings({ reserved_concurrency: { sys: 20, sweeper: 1 } }));
    expect(fns.sys!.reservedConcurrency).toBe(20);
    expect(fns.sweeper!.reservedConcurrency).toBe(1);
    expect(fns.pki!.reservedConcurrency).toBeUndefined();
    expect(fns.sys!.role).toBe('LatchkeySysRole');
    expect(() => buildFunctions(undefined, undefined, parseSettings({ reserved_concurrency: { nope: 1 } }))).toThrow(
      /unknown function "nope"/,
    );
  });

  it('grants Sign and GetPublicKey on managed keys to the PKI functions only, and hands them MANAGED_KEYS', () => {
    const settings = parseSettings({ managed_keys: { 'ca-key': { key_id: KEY } } });
    const fns = buildFunctions(undefined, undefined, settings);
    expect(JSON.parse(fns.pki!.environment!.MANAGED_KEYS as string)).toEqual({ 'ca-key': { key_id: KEY } });
    expect(fns.ssh!.environment ?? {}).not.toHaveProperty('MANAGED_KEYS');
    const signing = (name: string) => statementsFor(name, ARNS, settings, []).filter((s) => s.Action.includes('kms:Sign'));
    expect(signing('pki')).toEqual([{ Effect: 'Allow', Action: ['kms:Sign', 'kms:GetPublicKey'], Resource: [KEY] }]);
    expect(signing('pki-tidy')).toHaveLength(1);
    for (const other of ['sys', 'ssh', 'catalog', 'cloud-b', 'sweeper']) expect(signing(other), other).toEqual([]);
  });

  it('refuses settings that would deploy wrong, naming them', () => {
    expect(() => parseSettings({ managed_keys: { k: { key_id: 'alias/my-key' } } })).toThrow(/managed_keys.k.key_id must be a KMS key ARN/);
    expect(() => parseSettings({ api: { throttle: { rate_limit: -1 } } })).toThrow(/api.throttle.rate_limit/);
    expect(() => parseSettings({ reserved_concurrency: { sys: 1.5 } })).toThrow(/reserved_concurrency.sys/);
  });
});
