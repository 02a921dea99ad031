/**
 * Run as a child process (NODE_EXTRA_CA_CERTS trusts the fake's CA, as the identity SDK insists
 * on HTTPS): drives the cloud-A fake with the official SDKs and prints one JSON line of results.
 * Arguments: <fake url> <tenant> <subscription> <client id> <client secret>
 */
import { AuthorizationManagementClient } from '@azure/arm-authorization';
import { ClientSecretCredential } from '@azure/identity';
import { Client } from '@microsoft/microsoft-graph-client';
import { TokenCredentialAuthenticationProvider } from '@microsoft/microsoft-graph-client/authProviders/azureTokenCredentials/index.js';
import { randomUUID } from 'node:crypto';

const [url, tenant, subscription, clientId, secret] = process.argv.slice(2) as [string, string, string, string, string];
const credential = new ClientSecretCredential(tenant, clientId, secret, { authorityHost: url, disableInstanceDiscovery: true });
const out: Record<string, unknown> = {};

const token = await credential.getToken('https://graph.microsoft.com/.default');
out.token = typeof token.token === 'string' && token.token.length > 10;

const authProvider = new TokenCredentialAuthenticationProvider(credential, { scopes: ['https://graph.microsoft.com/.default'] });
const graph = Client.initWithMiddleware({ authProvider, baseUrl: url, customHosts: new Set([new URL(url).hostname]) });
const app = (await graph.api('/applications').post({ displayName: 'sdk-app' })) as { id: string; appId: string };
const sp = (await graph.api('/servicePrincipals').post({ appId: app.appId })) as { id: string };
const pw = (await graph.api(`/applications/${app.id}/addPassword`).post({ passwordCredential: { displayName: 'sdk-pw' } })) as {
  keyId: string;
  secretText: string;
};
out.password = typeof pw.secretText === 'string' && pw.secretText.length >= 20;
const found = (await graph.api('/applications').filter(`displayName eq 'sdk-app'`).get()) as { value: { id: string }[] };
out.found = found.value.map((a) => a.id).includes(app.id);
const groups = (await graph.api('/groups').filter(`displayName eq 'sdk-group'`).get()) as { value: { id: string }[] };
const groupId = groups.value[0]!.id;
await graph.api(`/groups/${groupId}/members/$ref`).post({ '@odata.id': `https://graph.microsoft.com/v1.0/directoryObjects/${sp.id}` });
const members = (await graph.api(`/groups/${groupId}/members`).get()) as { value: { id: string }[] };
out.member = members.value.some((m) => m.id === sp.id);

const arm = new AuthorizationManagementClient(credential, subscription, {
  endpoint: url,
  credentialScopes: ['https://management.azure.com/.default'],
});
const scope = `/subscriptions/${subscription}`;
const defs = [];
for await (const d of arm.roleDefinitions.list(scope, { filter: "roleName eq 'Reader'" })) defs.push(d);
out.roleDefinitions = defs.map((d) => d.roleName);
const assignment = await arm.roleAssignments.create(scope, randomUUID(), {
  roleDefinitionId: defs[0]!.id!,
  principalId: sp.id,
  principalType: 'ServicePrincipal',
});
out.assignment = assignment.principalId === sp.id;
await arm.roleAssignments.deleteById(assignment.id!);
try {
  await arm.roleAssignments.create(scope, randomUUID(), { roleDefinitionId: defs[0]!.id!, principalId: 'no-such-principal' });
} catch (e) {
  out.principalNotFound = (e as { code?: string }).code;
}

await graph.api(`/groups/${groupId}/members/${sp.id}/$ref`).delete();
await graph.api(`/applications/${app.id}/removePassword`).post({ keyId: pw.keyId });
await graph.api(`/applications/${app.id}`).delete();
try {
  await graph.api(`/applications/${app.id}`).get();
} catch (e) {
  out.deleted = (e as { code?: string; statusCode?: number }).statusCode;
}
const bad = new ClientSecretCredential(tenant, clientId, 'wrong-secret', { authorityHost: url, disableInstanceDiscovery: true });
out.badSecret = await bad.getToken('https://graph.microsoft.com/.default').then(
  () => 'accepted',
  (e: Error) => (/AADSTS7000215/.test(e.message) ? 'AADSTS7000215' : e.message.slice(0, 200)),
);
console.log(JSON.stringify(out));
