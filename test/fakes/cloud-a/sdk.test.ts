/**
 * The cloud-A fake driven by the official SDKs (identity, graph client, authorization
 * management) in a child process that trusts the fake's CA: they agree with the fake, so the
 * fake speaks the real wire protocols.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudAFake, type CloudAFake } from './server';
import { fakeTls } from './tls';

let fake: CloudAFake;
let dir: string;
beforeAll(async () => {
  const tls = await fakeTls();
  fake = await startCloudAFake(tls);
  dir = mkdtempSync(join(tmpdir(), 'cloud-a-sdk-'));
  writeFileSync(join(dir, 'ca.pem'), tls.ca);
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cloud-a fake with the official SDKs', () => {
  it('authenticates, manages applications, principals, passwords, groups and role assignments', async () => {
    fake.state.addGroup('sdk-group');
    const script = join(import.meta.dirname, 'sdk-client.ts');
    const args = [
      '--import',
      'tsx',
      script,
      fake.url,
      fake.state.tenantId,
      fake.state.subscriptionId,
      fake.root.clientId,
      fake.root.clientSecret,
    ];
    const { stdout } = await promisify(execFile)(process.execPath, args, {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'), NODE_NO_WARNINGS: '1' },
      timeout: 60_000,
    });
    const out = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(out).toEqual({
      token: true,
      password: true,
      found: true,
      member: true,
      roleDefinitions: ['Reader'],
      assignment: true,
      principalNotFound: 'PrincipalNotFound',
      deleted: 404,
      badSecret: 'AADSTS7000215',
    });
    expect(fake.state.leftovers({ apps: [fake.root.objectId] })).toEqual({
      applications: [],
      servicePrincipals: [],
      roleAssignments: [],
      groupMembers: [],
    });
  });
});
