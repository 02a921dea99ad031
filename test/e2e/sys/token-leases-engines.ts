/**
 * One case per leasing engine for the token-revocation tests: the single rule a token needs to
 * create a lease, how it creates one, and how to see at the engine (or its fake) that what the
 * lease created exists, then that it is undone.
 */
import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import { call } from '../../helpers/service';
import { text } from '../../helpers/openssl';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import type { LeaseBench } from './token-leases-bench';

export interface Issued {
  leaseId: string;
  /** Asserts that what the lease created is in force at the engine. */
  present(): Promise<void>;
  /** Asserts that what the lease created is undone at the engine. */
  undone(): Promise<void>;
}

/** The request that creates a lease (a fresh body each time). */
export interface LeaseRequest {
  method: string;
  path: string;
  body?: () => unknown;
}

export interface EngineCase {
  name: string;
  /** The only rules (besides auth/token/create) a token holds to create the lease. */
  rules: Record<string, { capabilities: string[] }>;
  request: LeaseRequest;
  issue(b: LeaseBench, token: string): Promise<Issued>;
}

const keyDir = tempDir('latchkey-token-leases-');
let seq = 0;

export const removeKeys = () => rmSync(keyDir, { recursive: true, force: true });

export const send = (b: LeaseBench, req: LeaseRequest, token: string) =>
  call(b.svc.app, req.method, `/v1/${req.path}`, { token, ...(req.body ? { body: req.body() } : {}) });

async function leased(b: LeaseBench, req: LeaseRequest, token: string) {
  const r = await send(b, req, token);
  expect(r.status, `${req.method} ${req.path}: ${r.text}`).toBe(200);
  expect(r.json!.lease_id, `${req.path} gives a lease`).toMatch(/\/.+\//);
  return r.json!;
}

async function revokedSerials(b: LeaseBench): Promise<string[]> {
  const r = await call(b.svc.app, 'LIST', '/v1/pki/certs/revoked', { token: b.svc.root });
  return r.status === 404 ? [] : (r.json!.data.keys as string[]);
}

/** The serials on the CRL, as openssl reads it (upper-case hex without colons). */
async function crlSerials(b: LeaseBench): Promise<string> {
  const r = await call(b.svc.app, 'GET', '/v1/pki/crl/pem');
  expect(r.status).toBe(200);
  return text(r.text, 'crl');
}

const pki: EngineCase = {
  name: 'PKI certificate (generate_lease)',
  rules: { 'pki/issue/leased': { capabilities: ['update'] } },
  request: { method: 'POST', path: 'pki/issue/leased', body: () => ({ common_name: `t${seq++}.example.com` }) },
  async issue(b, token) {
    const r = await leased(b, this.request, token);
    const serial = r.data.serial_number as string;
    const onCrl = `Serial Number: ${serial.replace(/:/g, '').toUpperCase()}`;
    return {
      leaseId: r.lease_id,
      present: async () => {
        expect(await revokedSerials(b)).not.toContain(serial);
        expect(await crlSerials(b)).not.toContain(onCrl);
      },
      undone: async () => {
        expect(await revokedSerials(b)).toContain(serial);
        expect(await crlSerials(b)).toContain(onCrl);
      },
    };
  },
};

const sshCert: EngineCase = {
  name: 'SSH signed certificate',
  rules: { 'ssh/sign/users': { capabilities: ['update'] } },
  request: { method: 'POST', path: 'ssh/sign/users', body: () => ({ public_key: keygen(keyDir, 'ed25519').pubText }) },
  async issue(b, token) {
    const r = await leased(b, this.request, token);
    expect(r.data.signed_key).toMatch(/^ssh-ed25519-cert-v01@openssh.com /);
    // As the reference, the engine keeps nothing for a signed certificate: the lease is all there is.
    return { leaseId: r.lease_id, present: async () => undefined, undone: async () => undefined };
  },
};

const sshOtp: EngineCase = {
  name: 'SSH one-time password',
  rules: { 'ssh/creds/otp': { capabilities: ['update'] } },
  request: { method: 'POST', path: 'ssh/creds/otp', body: () => ({ ip: '10.0.0.5' }) },
  async issue(b, token) {
    const r = await leased(b, this.request, token);
    const otp = r.data.key as string;
    return {
      leaseId: r.lease_id,
      // Verifying would spend the OTP: its presence shows only as the 200 it would get.
      present: async () => undefined,
      undone: async () => {
        const v = await call(b.svc.app, 'POST', '/v1/ssh/verify', { body: { otp } });
        expect(v).toMatchObject({ status: 400, json: { errors: ['OTP not found'] } });
      },
    };
  },
};

const sshDynamic: EngineCase = {
  name: 'SSH dynamic key',
  rules: { 'ssh/creds/dyn': { capabilities: ['update'] } },
  request: { method: 'POST', path: 'ssh/creds/dyn', body: () => ({ ip: '127.0.0.1' }) },
  async issue(b, token) {
    const before = new Set(b.authorizedKeys().split('\n'));
    const r = await leased(b, this.request, token);
    const added = b
      .authorizedKeys()
      .split('\n')
      .filter((l) => l && !before.has(l));
    expect(added).toHaveLength(1);
    const line = added[0]!;
    return {
      leaseId: r.lease_id,
      present: async () => expect(b.authorizedKeys()).toContain(line),
      undone: async () => expect(b.authorizedKeys()).not.toContain(line),
    };
  },
};

const cloudA: EngineCase = {
  name: 'cloud-A service principal',
  rules: { 'cloud-a/creds/dyn': { capabilities: ['read'] } },
  request: { method: 'GET', path: 'cloud-a/creds/dyn' },
  async issue(b, token) {
    const r = await leased(b, this.request, token);
    const clientId = r.data.client_id as string;
    const s = b.cloudA.state;
    const held = () => ({
      application: [...s.applications.values()].some((a) => a.appId === clientId),
      servicePrincipal: [...s.servicePrincipals.values()].some((sp) => sp.appId === clientId),
    });
    return {
      leaseId: r.lease_id,
      present: async () => expect(held()).toEqual({ application: true, servicePrincipal: true }),
      undone: async () => expect(held()).toEqual({ application: false, servicePrincipal: false }),
    };
  },
};

const cloudB: EngineCase = {
  name: 'cloud-B access key',
  rules: { 'cloud-b/creds/ops': { capabilities: ['read'] } },
  request: { method: 'GET', path: 'cloud-b/creds/ops' },
  async issue(b, token) {
    const r = await leased(b, this.request, token);
    const keyId = r.access_key as string;
    const s = b.cloudB.state;
    const user = s.keys.get(keyId)?.userName ?? '';
    expect(user).not.toBe('');
    const held = () => ({ key: s.keys.has(keyId), user: s.users.has(user) });
    return {
      leaseId: r.lease_id,
      present: async () => expect(held()).toEqual({ key: true, user: true }),
      undone: async () => expect(held()).toEqual({ key: false, user: false }),
    };
  },
};

export const ENGINES: EngineCase[] = [pki, sshCert, sshOtp, sshDynamic, cloudA, cloudB];
export const CLOUD_ENGINES = { cloudA, cloudB };
