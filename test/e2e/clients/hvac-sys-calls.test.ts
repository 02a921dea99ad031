/**
 * python3-hvac drives the sys calls clients make (issue 27, item 2): sys/leader
 * (`read_leader_status`, `ha_status`), sys/capabilities, -self and -accessor (`get_capabilities`),
 * sys/mounts with KV options (`retrieve_mount_option`), sys/internal/ui/mounts, sys/key-status
 * (`get_encryption_key_status`, `key_status`), sys/version-history and sys/host-info (generic
 * read/list). Scenarios: hvac_sys_calls.py.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOUNTS } from '../../../lib/config';
import { loadEngines } from '../../../lib/engines';
import { memo, runHvac, startClientService, type ClientService, type Json } from './harness';

let cs: ClientService;
const run = memo((scenario: string): Promise<Json> => runHvac(cs, 'hvac_sys_calls.py', scenario));
const refused = (cls: string, message?: RegExp) => ({ error: cls, message: message ? expect.stringMatching(message) : expect.any(String) });
const KV_MOUNTED = MOUNTS.some((m) => m.path === 'secret' && m.type === 'kv');

beforeAll(async () => {
  cs = await startClientService(await loadEngines());
});

afterAll(async () => {
  await cs.server.close();
});

describe('python3-hvac: the sys calls clients make', () => {
  it('read_leader_status and ha_status: not clustered, for any token; none without a token', async () => {
    const out = await run('leader');
    const leader = { ha_enabled: false, is_self: false, leader_address: '', leader_cluster_address: '', performance_standby: false };
    expect(out.leader.ok).toMatchObject(leader);
    expect(out.ha_status.ok).toMatchObject(leader);
    expect(out.default_token.ok).toMatchObject(leader);
    expect(out.no_token).toEqual(refused('Forbidden', /missing client token/));
  });

  it('get_capabilities: self, by token, by accessor; root is ["root"]; unknown token or accessor is InvalidRequest', async () => {
    const out = await run('capabilities');
    const byPath = { 'secret/data/app/db': ['list', 'read'], 'pki/issue/web': ['update'], 'ssh/sign/x': ['deny'] };
    expect(out.self.ok.data).toEqual(byPath);
    expect(out.self_one.ok.data).toEqual({ 'secret/data/app/db': ['list', 'read'], capabilities: ['list', 'read'] });
    expect(out.token.ok.data).toEqual(byPath);
    expect(out.accessor.ok.data).toEqual(byPath);
    expect(out.root_self.ok.data).toEqual({ anything: ['root'], capabilities: ['root'] });
    expect(out.bad_token).toEqual(refused('InvalidRequest', /invalid token/));
    expect(out.bad_accessor).toEqual(refused('InvalidRequest', /invalid accessor/));
    expect(out.not_granted).toEqual(refused('Forbidden'));
  });

  it('sys/mounts lists every mount with its options; sys/internal/ui/mounts answers the mount holding a path', async () => {
    const out = await run('mounts');
    expect(Object.keys(out.listed).sort()).toEqual(MOUNTS.map((m) => `${m.path}/`).sort());
    expect(out.listed['pki/']).toEqual({ type: 'pki', options: null });
    expect(out.pki_version).toEqual({ ok: 'none' });
    expect(out.ui_none).toEqual(refused('Forbidden', /preflight capability check returned 403/));
    expect(Object.keys(out.ui_all.ok.data)).toEqual(['secret', 'auth']);
    if (KV_MOUNTED) {
      expect(out.listed['secret/']).toEqual({ type: 'kv', options: { version: '2' } });
      expect(out.kv_version).toEqual({ ok: '2' });
      expect(out.ui_mount.ok.data).toMatchObject({ path: 'secret/', type: 'kv', options: { version: '2' } });
    }
  });

  it('get_encryption_key_status, key_status, version history; host-info refused naming why', async () => {
    const out = await run('server');
    expect(out.key_status.ok.data).toEqual({ term: 1, install_time: expect.any(String) });
    expect(out.key_status_v1.ok).toEqual(out.key_status.ok.data);
    expect(out.version_history.ok.data.keys).toHaveLength(1);
    expect(out.host_info).toEqual(refused('InvalidRequest', /Lambda/));
  });
});
