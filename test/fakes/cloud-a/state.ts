/** The state of the cloud-A fake: a directory (applications, principals, groups) and role assignments. */
import { randomBytes, randomUUID } from 'node:crypto';

export interface FakePassword {
  keyId: string;
  displayName: string | null;
  hint: string;
  startDateTime: string;
  endDateTime: string;
  secret: string;
  /** token requests with this secret fail until this many have been refused (propagation delay) */
  refusalsLeft: number;
}

export interface FakeApp {
  id: string;
  appId: string;
  displayName: string;
  passwordCredentials: FakePassword[];
}

export interface FakeSp {
  id: string;
  appId: string;
  displayName: string;
}

export interface FakeGroup {
  id: string;
  displayName: string;
  members: Set<string>;
}

export interface FakeRoleDef {
  id: string;
  name: string;
  type: string;
  properties: { roleName: string; type: string; description: string };
}

export interface FakeAssignment {
  id: string;
  name: string;
  type: string;
  properties: { roleDefinitionId: string; principalId: string; principalType: string; scope: string };
}

export const ROLE_ASSIGNMENTS = 'providers/Microsoft.Authorization/roleAssignments';

export class DirectoryState {
  readonly applications = new Map<string, FakeApp>();
  readonly servicePrincipals = new Map<string, FakeSp>();
  readonly groups = new Map<string, FakeGroup>();
  readonly roleDefinitions = new Map<string, FakeRoleDef>();
  /** by lowercased id */
  readonly roleAssignments = new Map<string, FakeAssignment>();
  readonly resourceGroups = new Set<string>();
  /** new passwords are refused this many times by the token endpoint (eventual consistency) */
  propagationRefusals = 0;

  constructor(
    readonly tenantId: string,
    readonly subscriptionId: string,
  ) {
    for (const name of ['Owner', 'Contributor', 'Reader', 'Storage Blob Data Reader']) this.addRoleDefinition(name);
  }

  get subscriptionScope(): string {
    return `/subscriptions/${this.subscriptionId}`;
  }

  addRoleDefinition(roleName: string): FakeRoleDef {
    const name = randomUUID();
    const def: FakeRoleDef = {
      id: `${this.subscriptionScope}/providers/Microsoft.Authorization/roleDefinitions/${name}`,
      name,
      type: 'Microsoft.Authorization/roleDefinitions',
      properties: { roleName, type: 'BuiltInRole', description: roleName },
    };
    this.roleDefinitions.set(def.id.toLowerCase(), def);
    return def;
  }

  addGroup(displayName: string): FakeGroup {
    const g = { id: randomUUID(), displayName, members: new Set<string>() };
    this.groups.set(g.id, g);
    return g;
  }

  createApplication(displayName: string): FakeApp {
    const app: FakeApp = { id: randomUUID(), appId: randomUUID(), displayName, passwordCredentials: [] };
    this.applications.set(app.id, app);
    return app;
  }

  addPassword(
    app: FakeApp,
    displayName: string | null,
    endDateTime: string | undefined,
    refusals = this.propagationRefusals,
  ): FakePassword {
    // Alphanumeric with the cloud's "~" and "." flavour, 40 characters.
    const secret =
      randomBytes(30).toString('base64').replace(/[+/=]/g, 'x').slice(0, 36) + '~' + randomBytes(2).toString('hex').slice(0, 3);
    const pw: FakePassword = {
      keyId: randomUUID(),
      displayName,
      hint: secret.slice(0, 3),
      startDateTime: new Date().toISOString(),
      endDateTime: endDateTime ?? new Date(Date.now() + 2 * 365 * 86400_000).toISOString(),
      secret,
      refusalsLeft: refusals,
    };
    app.passwordCredentials.push(pw);
    return pw;
  }

  deleteApplication(id: string): boolean {
    const app = this.applications.get(id);
    if (!app) return false;
    this.applications.delete(id);
    // Deleting an application deletes its service principal too, as the real directory does.
    for (const sp of [...this.servicePrincipals.values()]) if (sp.appId === app.appId) this.deleteServicePrincipal(sp.id);
    return true;
  }

  deleteServicePrincipal(id: string): boolean {
    if (!this.servicePrincipals.delete(id)) return false;
    for (const g of this.groups.values()) g.members.delete(id);
    return true;
  }

  /** The identity a client id + secret authenticates, or a reason. */
  authenticate(clientId: string, secret: string): FakeApp | 'unknown-client' | 'bad-secret' {
    const app = [...this.applications.values()].find((a) => a.appId === clientId);
    if (!app) return 'unknown-client';
    const pw = app.passwordCredentials.find((p) => p.secret === secret && Date.parse(p.endDateTime) > Date.now());
    if (!pw) return 'bad-secret';
    if (pw.refusalsLeft > 0) {
      pw.refusalsLeft--;
      return 'bad-secret';
    }
    return app;
  }

  scopeExists(scope: string): boolean {
    const s = scope.replace(/\/+$/, '').toLowerCase();
    if (s === this.subscriptionScope.toLowerCase()) return true;
    const m = /^\/subscriptions\/([^/]+)\/resourcegroups\/([^/]+)$/.exec(s);
    return !!m && m[1] === this.subscriptionId.toLowerCase() && this.resourceGroups.has(m[2]!);
  }

  /** What a test checks: objects the engine created and left behind. */
  leftovers(keep: { apps?: string[] } = {}) {
    const apps = [...this.applications.values()].filter((a) => !(keep.apps ?? []).includes(a.id));
    return {
      applications: apps.map((a) => a.displayName),
      servicePrincipals: [...this.servicePrincipals.values()]
        .filter((sp) => apps.some((a) => a.appId === sp.appId) || ![...this.applications.values()].some((a) => a.appId === sp.appId))
        .map((s) => s.id),
      roleAssignments: [...this.roleAssignments.values()].map((a) => a.id),
      groupMembers: [...this.groups.values()].flatMap((g) => [...g.members]),
    };
  }
}
