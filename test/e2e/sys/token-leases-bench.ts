/**
 * A service serving every leasing engine at once — PKI, SSH (CA, OTP, dynamic keys on a real
 * sshd), cloud-A and cloud-B against their HTTPS fakes — with one role per engine and a
 * controllable clock, for the token-revocation tests.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeCloudAEngine } from '../../../lib/cloud-a/engine';
import { makeCloudBEngine } from '../../../lib/cloud-b/engine';
import { pkiEngine } from '../../../lib/pki/engine';
import { sshEngine } from '../../../lib/ssh/engine';
import { startCloudAFake, type CloudAFake } from '../../fakes/cloud-a/server';
import { fakeTls } from '../../fakes/cloud-a/tls';
import { startCloudBFake, type CloudBFake } from '../../fakes/cloud-b/server';
import { call, createTestService, type TestService } from '../../helpers/service';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import { ensureUser, startSshd, type Sshd } from '../../helpers/sshd';

/** The account dynamic SSH keys are installed for (its own, so other SSH tests never share its authorized_keys). */
export const DYN_USER = 'lktokenlease';

export interface LeaseBench {
  svc: TestService;
  cloudA: CloudAFake;
  cloudB: CloudBFake;
  sshd: Sshd;
  /** The service's clock (ms); tests move it forward to make retries due. */
  clock: { now: number };
  /** The dynamic-key account's authorized_keys file, and its content as sshd reads it. */
  authorizedKeysFile: string;
  authorizedKeys(): string;
  /** Role `gated` installs a key only once this file exists (uninstalls at once). */
  installGate: string;
  close(): Promise<void>;
}

async function ok(svc: TestService, method: string, path: string, body: unknown, want = [200, 204]) {
  const r = await call(svc.app, method, `/v1/${path}`, { token: svc.root, body });
  if (!want.includes(r.status)) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r;
}

export async function leaseBench(): Promise<LeaseBench> {
  const tls = await fakeTls();
  const cloudA = await startCloudAFake(tls);
  const cloudB = await startCloudBFake(tls);
  const env: Record<string, string | undefined> = {
    CLOUDA_AUTHORITY_URL: cloudA.url,
    CLOUDA_GRAPH_URL: cloudA.url,
    CLOUDA_RESOURCE_MANAGER_URL: cloudA.url,
    CLOUDA_CA_CERT: tls.ca,
    CLOUDA_RETRY_DELAY_MS: '5',
    CLOUDA_TIMEOUT_MS: '5000',
    CLOUDB_RAM_ENDPOINT: cloudB.url,
    CLOUDB_STS_ENDPOINT: cloudB.url,
    CLOUDB_METADATA_ENDPOINT: cloudB.url,
    CLOUDB_CA_CERT: tls.ca,
    CLOUDB_TIMEOUT_MS: '5000',
  };
  const clock = { now: Date.now() };
  const svc = await createTestService({
    engines: [pkiEngine, sshEngine, makeCloudAEngine(() => env), makeCloudBEngine(() => env)],
    now: () => clock.now,
  });
  const home = ensureUser(DYN_USER);
  rmSync(join(home, '.ssh'), { recursive: true, force: true });
  const sshd = await startSshd();
  const keysDir = tempDir();
  const installGate = join(keysDir, 'install-gate');
  const close = async () => {
    await Promise.all([cloudA.close(), cloudB.close(), sshd.stop()]);
    rmSync(keysDir, { recursive: true, force: true });
  };
  try {
    await configurePki(svc);
    await configureSsh(svc, sshd, keysDir, installGate);
    await configureClouds(svc, cloudA, cloudB);
  } catch (e) {
    await close();
    throw e;
  }
  const authorizedKeysFile = join(home, '.ssh/authorized_keys');
  const authorizedKeys = () => (existsSync(authorizedKeysFile) ? readFileSync(authorizedKeysFile, 'utf8') : '');
  return { svc, cloudA, cloudB, sshd, clock, authorizedKeysFile, authorizedKeys, installGate, close };
}

async function configurePki(svc: TestService) {
  await ok(svc, 'POST', 'pki/root/generate/internal', { common_name: 'Token Leases Root', ttl: '8760h', key_type: 'ec' });
  await ok(svc, 'POST', 'pki/roles/leased', { allow_any_name: true, key_type: 'ec', ttl: '1h', generate_lease: true });
}

/** A reference-interface install script (`install|uninstall <key file> <authorized_keys>`) whose install waits for a gate file. */
const gatedScript = (gate: string) => `#!/bin/sh
set -eu
op="$1"; keyfile="$2"; auth="$3"
if [ "$op" = install ]; then
  i=0; while [ ! -f '${gate}' ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
  mkdir -p "$(dirname "$auth")"; touch "$auth"
  cat "$keyfile" >> "$auth"
elif [ -f "$auth" ]; then
  grep -vxF -- "$(cat "$keyfile")" "$auth" > "$auth.new" || true
  cat "$auth.new" > "$auth"; rm -f "$auth.new"
fi
`;

async function configureSsh(svc: TestService, sshd: Sshd, dir: string, gate: string) {
  await ok(svc, 'POST', 'ssh/config/ca', { key_type: 'ed25519' });
  await ok(svc, 'POST', 'ssh/roles/users', {
    key_type: 'ca',
    allow_user_certificates: true,
    allowed_users: '*',
    default_user: 'alice',
    ttl: '30m',
  });
  await ok(svc, 'POST', 'ssh/roles/otp', { key_type: 'otp', default_user: 'ubuntu', cidr_list: '10.0.0.0/8' });
  const admin = keygen(dir, 'ed25519');
  writeFileSync(join(sshd.keysDir, 'root'), admin.pubText);
  await ok(svc, 'POST', 'ssh/keys/admin', { key: admin.privText });
  const dyn = { key_type: 'dynamic', key: 'admin', admin_user: 'root', default_user: DYN_USER, cidr_list: '127.0.0.0/8', port: sshd.port };
  await ok(svc, 'POST', 'ssh/roles/dyn', dyn);
  await ok(svc, 'POST', 'ssh/roles/gated', { ...dyn, install_script: gatedScript(gate) });
}

async function configureClouds(svc: TestService, cloudA: CloudAFake, cloudB: CloudBFake) {
  const a = cloudA.state;
  await ok(svc, 'POST', 'cloud-a/config', {
    subscription_id: a.subscriptionId,
    tenant_id: a.tenantId,
    client_id: cloudA.root.clientId,
    client_secret: cloudA.root.clientSecret,
  });
  await ok(svc, 'POST', 'cloud-a/roles/dyn', {
    cloud_a_roles: JSON.stringify([{ role_name: 'Contributor', scope: `/subscriptions/${a.subscriptionId}` }]),
    ttl: '1h',
  });
  await ok(svc, 'POST', 'cloud-b/config', { access_key: cloudB.state.root.id, secret_key: cloudB.state.root.secret });
  const doc = { Version: '1', Statement: [{ Effect: 'Allow', Action: 'oss:GetObject', Resource: 'acs:oss:*:*:bucket/*' }] };
  await ok(svc, 'POST', 'cloud-b/role/ops', { inline_policies: JSON.stringify([doc]), remote_policies: 'name:ReadOnlyAccess,type:System' });
}
