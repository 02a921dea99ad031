/** The directory graph routes of the cloud-A fake (`/v1.0/...`). */
import { graphError, type Ctx, type Reply } from './server';
import type { FakeApp, FakePassword } from './state';

const notFound = (id: string): Reply =>
  graphError(
    404,
    'Request_ResourceNotFound',
    `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
  );

const pwView = (p: FakePassword, withSecret = false) => ({
  customKeyIdentifier: null,
  displayName: p.displayName,
  endDateTime: p.endDateTime,
  hint: p.hint,
  keyId: p.keyId,
  secretText: withSecret ? p.secret : null,
  startDateTime: p.startDateTime,
});
const appView = (a: FakeApp) => ({
  id: a.id,
  appId: a.appId,
  displayName: a.displayName,
  passwordCredentials: a.passwordCredentials.map((p) => pwView(p)),
});

/** `$filter=field eq 'value'` (the only filter form the engine and the SDK checks use). */
function filterOf(url: URL): { field: string; value: string } | undefined {
  const f = url.searchParams.get('$filter');
  const m = f ? /^(\w+) eq '((?:[^']|'')*)'$/.exec(f) : null;
  return m ? { field: m[1]!, value: m[2]!.replace(/''/g, "'") } : undefined;
}

type Route = { op: string; run: () => Reply } | undefined;

export function graphRoute(ctx: Ctx): { op: string; run: () => Reply } {
  const parts = ctx.url.pathname.split('/').slice(2).map(decodeURIComponent);
  const [coll, ...rest] = parts;
  const route =
    coll === 'applications'
      ? applications(ctx, rest)
      : coll === 'servicePrincipals'
        ? servicePrincipals(ctx, rest)
        : coll === 'groups'
          ? groups(ctx, rest)
          : undefined;
  return route ?? { op: 'unknown', run: () => graphError(400, 'BadRequest', `Resource not found for the segment '${coll ?? ''}'.`) };
}

function applications(ctx: Ctx, [id, sub]: string[]): Route {
  const { state: s, method, body } = ctx;
  const filter = filterOf(ctx.url);
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
    const match = (a: FakeApp) => !filter || (a as unknown as Record<string, string>)[filter.field] === filter.value;
    return {
      op: 'listApplications',
      run: () => ({ status: 200, body: { value: [...s.applications.values()].filter(match).map(appView) } }),
    };
  }
  if (!id) return undefined;
  const app = s.applications.get(id);
  if (!sub && method === 'GET') return { op: 'getApplication', run: () => (app ? { status: 200, body: appView(app) } : notFound(id)) };
  if (!sub && method === 'DELETE')
    return { op: 'deleteApplication', run: () => (s.deleteApplication(id) ? { status: 204 } : notFound(id)) };
  if (sub === 'addPassword' && method === 'POST') {
    const pc = (body.passwordCredential ?? {}) as { displayName?: string; endDateTime?: string };
    return {
      op: 'addPassword',
      run: () => (app ? { status: 200, body: pwView(s.addPassword(app, pc.displayName ?? null, pc.endDateTime), true) } : notFound(id)),
    };
  }
  if (sub === 'removePassword' && method === 'POST') {
    return {
      op: 'removePassword',
      run: () => {
        const i = app ? app.passwordCredentials.findIndex((p) => p.keyId === body.keyId) : -1;
        if (!app || i < 0) return notFound(String(body.keyId));
        app.passwordCredentials.splice(i, 1);
        return { status: 204 };
      },
    };
  }
  return undefined;
}

function servicePrincipals(ctx: Ctx, [id]: string[]): Route {
  const { state: s, method, body } = ctx;
  if (!id && method === 'POST') {
    return {
      op: 'createServicePrincipal',
      run: () => {
        const app = [...s.applications.values()].find((a) => a.appId === body.appId);
        if (!app)
          return graphError(
            400,
            'Request_BadRequest',
            `The appId '${String(body.appId)}' of the service principal does not reference a valid application object.`,
          );
        const sp = { id: crypto.randomUUID(), appId: app.appId, displayName: app.displayName };
        s.servicePrincipals.set(sp.id, sp);
        return { status: 201, body: sp };
      },
    };
  }
  const filter = filterOf(ctx.url);
  if (!id && method === 'GET') {
    return {
      op: 'listServicePrincipals',
      run: () => ({ status: 200, body: { value: [...s.servicePrincipals.values()].filter((sp) => !filter || sp.appId === filter.value) } }),
    };
  }
  if (id && method === 'DELETE')
    return { op: 'deleteServicePrincipal', run: () => (s.deleteServicePrincipal(id) ? { status: 204 } : notFound(id)) };
  return undefined;
}

function groups(ctx: Ctx, [id, sub, member, ref]: string[]): Route {
  const { state: s, method, body } = ctx;
  const filter = filterOf(ctx.url);
  if (!id && method === 'GET') {
    const view = [...s.groups.values()]
      .filter((x) => !filter || x.displayName === filter.value)
      .map((x) => ({ id: x.id, displayName: x.displayName }));
    return { op: 'listGroups', run: () => ({ status: 200, body: { value: view } }) };
  }
  if (!id) return undefined;
  const g = s.groups.get(id);
  if (!sub && method === 'GET')
    return { op: 'getGroup', run: () => (g ? { status: 200, body: { id: g.id, displayName: g.displayName } } : notFound(id)) };
  if (sub !== 'members') return undefined;
  if (member === '$ref' && method === 'POST') {
    return {
      op: 'addGroupMember',
      run: () => {
        const who =
          String(body['@odata.id'] ?? '')
            .split('/')
            .pop() ?? '';
        if (!g) return notFound(id);
        if (!s.servicePrincipals.has(who)) return notFound(who);
        if (g.members.has(who))
          return graphError(
            400,
            'Request_BadRequest',
            "One or more added object references already exist for the following modified properties: 'members'.",
          );
        g.members.add(who);
        return { status: 204 };
      },
    };
  }
  if (member && ref === '$ref' && method === 'DELETE')
    return { op: 'removeGroupMember', run: () => (g && g.members.delete(member) ? { status: 204 } : notFound(member)) };
  if (!member && method === 'GET')
    return {
      op: 'listGroupMembers',
      run: () => (g ? { status: 200, body: { value: [...g.members].map((m) => ({ id: m })) } } : notFound(id)),
    };
  return undefined;
}
