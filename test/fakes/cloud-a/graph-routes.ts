/** The directory graph routes of the cloud-A fake (`/v1.0/...`). */
import { graphError, type Ctx, type Reply } from './server';
import type { FakeApp, FakePassword } from './state';

const notFound = (id: string): Reply => graphError(404, 'Request_ResourceNotFound', `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`);

const pwView = (p: FakePassword, withSecret = false) => ({
  customKeyIdentifier: null,
  displayName: p.displayName,
  endDateTime: p.endDateTime,
  hint: p.hint,
  keyId: p.keyId,
  secretText: withSecret ? p.secret : null,
  startDateTime: p.startDateTime,
});
const appView = (a: FakeApp) => ({ id: a.id, appId: a.appId, displayName: a.displayName, passwordCredentials: a.passwordCredentials.map((p) => pwView(p)) });

/** `$filter=field eq 'value'` (the only filter form the engine and the SDK checks use). */
function filterOf(url: URL): { field: string; value: string } | undefined {
  const f = url.searchParams.get('$filter');
  const m = f ? /^(\w+) eq '((?:[^']|'')*)'$/.exec(f) : null;
  return m ? { field: m[1]!, value: m[2]!.replace(/''/g, "'") } : undefined;
}

export function graphRoute(ctx: Ctx): { op: string; run: () => Reply } {
  const { state: s, method, body } = ctx;
  const parts = ctx.url.pathname.split('/').slice(2).map(decodeURIComponent);
  const [coll, id, sub, sub2, sub3] = parts;
  const filter = filterOf(ctx.url);
  if (coll === 'applications') {
    if (!id && method === 'POST') {
      return {
        op: 'createApplication',
        run: () =>
          typeof body.displayName === 'string' && body.displayName
            ? { status: 201, body: appView(s.createApplication(body.displayName)) }
            : graphError(400, 'Request_BadRequest', 'displayName is required'),
      };
    }
    if (!id && method === 'GET') {
      return {
        op: 'listApplications',
        run: () => ({
          status: 200,
          body: { value: [...s.applications.values()].filter((a) => !filter || (a as unknown as Record<string, string>)[filter.field] === filter.value).map(appView) },
        }),
      };
    }
    const app = id ? s.applications.get(id) : undefined;
    if (id && !sub && method === 'GET') return { op: 'getApplication', run: () => (app ? { status: 200, body: appView(app) } : notFound(id)) };
    if (id && !sub && method === 'DELETE') return { op: 'deleteApplication', run: () => (s.deleteApplication(id) ? { status: 204 } : notFound(id)) };
    if (id && sub === 'addPassword' && method === 'POST') {
      return {
        op: 'addPassword',
        run: () => {
          if (!app) return notFound(id);
          const pc = (body.passwordCredential ?? {}) as { displayName?: string; endDateTime?: string };
          return { status: 200, body: pwView(s.addPassword(app, pc.displayName ?? null, pc.endDateTime), true) };
        },
      };
    }
    if (id && sub === 'removePassword' && method === 'POST') {
      return {
        op: 'removePassword',
        run: () => {
          if (!app) return notFound(id);
          const i = app.passwordCredentials.findIndex((p) => p.keyId === body.keyId);
          if (i < 0) return notFound(String(body.keyId));
          app.passwordCredentials.splice(i, 1);
          return { status: 204 };
        },
      };
    }
  }
  if (coll === 'servicePrincipals') {
    if (!id && method === 'POST') {
      return {
        op: 'createServicePrincipal',
        run: () => {
          const app = [...s.applications.values()].find((a) => a.appId === body.appId);
          if (!app) return graphError(400, 'Request_BadRequest', `The appId '${String(body.appId)}' of the service principal does not reference a valid application object.`);
          const sp = { id: crypto.randomUUID(), appId: app.appId, displayName: app.displayName };
          s.servicePrincipals.set(sp.id, sp);
          return { status: 201, body: sp };
        },
      };
    }
    if (!id && method === 'GET') {
      return { op: 'listServicePrincipals', run: () => ({ status: 200, body: { value: [...s.servicePrincipals.values()].filter((sp) => !filter || sp.appId === filter.value) } }) };
    }
    if (id && method === 'DELETE') return { op: 'deleteServicePrincipal', run: () => (s.deleteServicePrincipal(id) ? { status: 204 } : notFound(id)) };
  }
  if (coll === 'groups') {
    const g = id ? s.groups.get(id) : undefined;
    const view = () => ({ id: g!.id, displayName: g!.displayName });
    if (!id && method === 'GET') {
      return {
        op: 'listGroups',
        run: () => ({ status: 200, body: { value: [...s.groups.values()].filter((x) => !filter || x.displayName === filter.value).map((x) => ({ id: x.id, displayName: x.displayName })) } }),
      };
    }
    if (id && !sub && method === 'GET') return { op: 'getGroup', run: () => (g ? { status: 200, body: view() } : notFound(id)) };
    if (id && sub === 'members' && sub2 === '$ref' && method === 'POST') {
      return {
        op: 'addGroupMember',
        run: () => {
          if (!g) return notFound(id);
          const member = String(body['@odata.id'] ?? '').split('/').pop() ?? '';
          if (!s.servicePrincipals.has(member)) return notFound(member);
          if (g.members.has(member)) return graphError(400, 'Request_BadRequest', "One or more added object references already exist for the following modified properties: 'members'.");
          g.members.add(member);
          return { status: 204 };
        },
      };
    }
    if (id && sub === 'members' && sub2 && sub3 === '$ref' && method === 'DELETE') {
      return { op: 'removeGroupMember', run: () => (g && g.members.delete(sub2) ? { status: 204 } : notFound(sub2)) };
    }
    if (id && sub === 'members' && !sub2 && method === 'GET') {
      return { op: 'listGroupMembers', run: () => (g ? { status: 200, body: { value: [...g.members].map((m) => ({ id: m })) } } : notFound(id)) };
    }
  }
  return { op: 'unknown', run: () => graphError(400, 'BadRequest', `Resource not found for the segment '${coll ?? ''}'.`) };
}
