import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;
beforeAll(async () => {
  svc = await createTestService();
});

const doc = (paths: Record<string, string[]>) =>
  JSON.stringify({ path: Object.fromEntries(Object.entries(paths).map(([p, c]) => [p, { capabilities: c }])) });

describe('sys/policy', () => {
  it('writes (string or object), reads back as a string, lists and deletes', async () => {
    expect(
      (await call(svc.app, 'PUT', '/v1/sys/policy/readers', { token: svc.root, body: { policy: doc({ 'sys/mounts': ['read'] }) } })).status,
    ).toBe(204);
    expect(
      (
        await call(svc.app, 'POST', '/v1/sys/policy/objects', {
          token: svc.root,
          body: { policy: { path: { 'a/*': { capabilities: ['list'] } } } },
        })
      ).status,
    ).toBe(204);
    const read = await call(svc.app, 'GET', '/v1/sys/policy/readers', { token: svc.root });
    expect(read.json!.data).toMatchObject({ name: 'readers', policy: doc({ 'sys/mounts': ['read'] }) });
    expect(typeof (await call(svc.app, 'GET', '/v1/sys/policy/objects', { token: svc.root })).json!.data.policy).toBe('string');
    const list = await call(svc.app, 'LIST', '/v1/sys/policy', { token: svc.root });
    expect(list.json!.data.keys).toEqual(expect.arrayContaining(['default', 'objects', 'readers', 'root']));
    expect((await call(svc.app, 'DELETE', '/v1/sys/policy/readers', { token: svc.root })).status).toBe(204);
    expect(await call(svc.app, 'GET', '/v1/sys/policy/readers', { token: svc.root })).toMatchObject({
      status: 404,
      json: { errors: ['nothing found at "sys/policy/readers"'] },
    });
  });

  it('folds names to lower case before the policy check (as Vault stores them), so a deny on sys/policy/<name> holds under every spelling', async () => {
    await call(svc.app, 'PUT', '/v1/sys/policy/secretive', { token: svc.root, body: { policy: doc({ 'a/*': ['read'] }) } });
    await call(svc.app, 'PUT', '/v1/sys/policy/peeker', {
      token: svc.root,
      body: {
        policy: JSON.stringify({
          path: { 'sys/policy/*': { capabilities: ['read', 'update', 'delete'] }, 'sys/policy/secretive': { capabilities: ['deny'] } },
        }),
      },
    });
    const t = await tokenWith(svc, ['peeker']);
    expect((await call(svc.app, 'GET', '/v1/sys/policy/secretive', { token: t })).status).toBe(403);
    for (const spelling of ['SECRETIVE', 'Secretive', 'secretivE']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const r = await call(svc.app, method, `/v1/sys/policy/${spelling}`, {
          token: t,
          ...(method === 'PUT' ? { body: { policy: doc({ 'x/*': ['read'] }) } } : {}),
        });
        expect(r.status, `${method} ${spelling}`).toBe(403);
      }
    }
    expect((await call(svc.app, 'GET', '/v1/sys/policy/secretive', { token: svc.root })).json!.data.policy).toBe(doc({ 'a/*': ['read'] }));
  });

  it('refuses bad documents, names, and changes to built-ins', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['p1', { policy: 'not json' }, /failed to parse policy: line 1/],
      ['p1', { policy: '{not json' }, /not valid JSON/],
      ['p1', { policy: doc({ 'a/*': ['fly'] }) }, /unknown capability "fly"/],
      ['p1', {}, /missing required field "policy"/],
      ['p1', { policy: 12 }, /expected a JSON object/],
      ['bad name!', { policy: '{}' }, /invalid policy name/],
      ['root', { policy: '{}' }, /cannot update the root policy/],
    ];
    for (const [name, body, message] of cases) {
      const r = await call(svc.app, 'PUT', `/v1/sys/policy/${encodeURIComponent(name)}`, { token: svc.root, body });
      expect(r.status, name).toBe(400);
      expect(r.json!.errors[0]).toMatch(message);
    }
    expect((await call(svc.app, 'DELETE', '/v1/sys/policy/default', { token: svc.root })).json).toEqual({
      errors: ['cannot delete the default policy'],
    });
    expect((await call(svc.app, 'GET', '/v1/sys/policy/p1', { token: svc.root })).status).toBe(404);
  });

  it('enforces capabilities: read, list, write, delete, deny and sudo', async () => {
    await call(svc.app, 'PUT', '/v1/sys/policy/ops', {
      token: svc.root,
      body: {
        policy: doc({
          'sys/policy/*': ['read', 'update'],
          'sys/policy/secret*': ['deny'],
          'sys/policy': ['list'],
          'sys/leases/lookup/*': ['list'],
        }),
      },
    });
    const t = await tokenWith(svc, ['ops']);
    expect((await call(svc.app, 'PUT', '/v1/sys/policy/team', { token: t, body: { policy: '{}' } })).status).toBe(204);
    expect((await call(svc.app, 'GET', '/v1/sys/policy/team', { token: t })).status).toBe(200);
    expect((await call(svc.app, 'LIST', '/v1/sys/policy', { token: t })).status).toBe(200);
    expect((await call(svc.app, 'DELETE', '/v1/sys/policy/team', { token: t })).json).toEqual({ errors: ['permission denied'] });
    expect((await call(svc.app, 'GET', '/v1/sys/policy/secret-x', { token: t })).status).toBe(403);
    expect((await call(svc.app, 'GET', '/v1/sys/mounts', { token: t })).status).toBe(403);
    // listing leases by prefix needs sudo
    expect((await call(svc.app, 'LIST', '/v1/sys/leases/lookup/x', { token: t })).status).toBe(403);
    // allowed, and empty: 404 as the reference answers an empty list
    expect((await call(svc.app, 'LIST', '/v1/sys/leases/lookup/x', { token: svc.root })).status).toBe(404);
  });

  it('a policy change takes effect on the next request', async () => {
    const t = await tokenWith(svc, ['flip']);
    expect((await call(svc.app, 'GET', '/v1/sys/mounts', { token: t })).status).toBe(403);
    await call(svc.app, 'PUT', '/v1/sys/policy/flip', { token: svc.root, body: { policy: doc({ 'sys/mounts': ['read'] }) } });
    expect((await call(svc.app, 'GET', '/v1/sys/mounts', { token: t })).status).toBe(200);
  });

  it('capabilities-self answers per path', async () => {
    await call(svc.app, 'PUT', '/v1/sys/policy/caps', {
      token: svc.root,
      body: { policy: doc({ 'pki/issue/*': ['create', 'update'], 'pki/roles/+': ['read'] }) },
    });
    const t = await tokenWith(svc, ['caps']);
    const r = await call(svc.app, 'POST', '/v1/sys/capabilities-self', {
      token: t,
      body: { paths: ['pki/issue/web', 'pki/roles/x', 'ssh/sign/a'] },
    });
    expect(r.json!.data).toMatchObject({ 'pki/issue/web': ['create', 'update'], 'pki/roles/x': ['read'], 'ssh/sign/a': ['deny'] });
    const root = await call(svc.app, 'POST', '/v1/sys/capabilities-self', { token: svc.root, body: { path: 'anything' } });
    expect(root.json!.data.capabilities).toEqual(['root']);
    expect((await call(svc.app, 'POST', '/v1/sys/capabilities-self', { token: t, body: {} })).status).toBe(400);
  });

  it('concurrent writes to one policy leave exactly one whole document', async () => {
    const docs = Array.from({ length: 20 }, (_, i) => doc({ [`path-${i}/*`]: ['read'], [`other-${i}`]: ['list'] }));
    const results = await Promise.all(
      docs.map((policy) => call(svc.app, 'PUT', '/v1/sys/policy/contended', { token: svc.root, body: { policy } })),
    );
    expect(results.every((r) => r.status === 204)).toBe(true);
    const read = await call(svc.app, 'GET', '/v1/sys/policy/contended', { token: svc.root });
    expect(docs).toContain(read.json!.data.policy);
    const items = (await svc.client.send(new ScanCommand({ TableName: svc.table }))).Items ?? [];
    expect(items.filter((i) => i.sk?.S === 'policy/contended')).toHaveLength(1);
  });
});
