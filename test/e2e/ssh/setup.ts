/** A test service serving the SSH engine, with helpers for its common calls. */
import { sshEngine } from '../../../lib/ssh/engine';
import { call, createTestService, type TestService } from '../../helpers/service';

export { call };

export async function sshService(options: { now?: () => number } = {}): Promise<TestService> {
  return createTestService({ engines: [sshEngine], ...options });
}

export async function writeRole(svc: TestService, name: string, body: Record<string, unknown>) {
  const r = await call(svc.app, 'POST', `/v1/ssh/roles/${name}`, { token: svc.root, body });
  if (r.status !== 204) throw new Error(`role ${name}: ${r.status} ${r.text}`);
}

export async function generateCa(svc: TestService, body: Record<string, unknown> = { key_type: 'ed25519' }): Promise<string> {
  const r = await call(svc.app, 'POST', '/v1/ssh/config/ca', { token: svc.root, body });
  if (r.status !== 200) throw new Error(`config/ca: ${r.status} ${r.text}`);
  return r.json!.data.public_key as string;
}

export async function sign(svc: TestService, role: string, body: Record<string, unknown>, token = svc.root) {
  return call(svc.app, 'POST', `/v1/ssh/sign/${role}`, { token, body });
}
