/** The directory graph calls the engine makes (applications, service principals, groups). */
import { CloudError } from '../cloud-common/cloud-error';
import type { Settings } from './config';
import { isNotFound, odata, rest } from './rest';

export interface PasswordCredential {
  keyId: string;
  displayName?: string | null;
  hint?: string | null;
  endDateTime?: string;
  secretText?: string | null;
}

export interface Application {
  id: string;
  appId: string;
  displayName: string;
  passwordCredentials: PasswordCredential[];
}

export interface DirectoryObject {
  id: string;
  displayName?: string;
  appId?: string;
}

const V = '/v1.0';
const enc = encodeURIComponent;

function need<T>(v: T | undefined, what: string): T {
  if (v === undefined || v === null) throw new CloudError('server', 502, `the graph answered ${what} without a body`);
  return v;
}

export const createApplication = async (s: Settings, displayName: string) =>
  need(
    await rest<Application>(s, { api: 'graph', method: 'POST', path: `${V}/applications`, body: { displayName } }),
    'create application',
  );

export const getApplication = async (s: Settings, id: string) =>
  need(await rest<Application>(s, { api: 'graph', method: 'GET', path: `${V}/applications/${enc(id)}` }), 'get application');

export async function findApplications(s: Settings, field: 'displayName' | 'appId', value: string): Promise<Application[]> {
  const r = await rest<{ value?: Application[] }>(s, {
    api: 'graph',
    method: 'GET',
    path: `${V}/applications?$filter=${enc(`${field} eq ${odata(value)}`)}`,
  });
  return r?.value ?? [];
}

/** Deletes an application; one already gone counts as deleted. */
export async function deleteApplication(s: Settings, id: string): Promise<void> {
  await rest(s, { api: 'graph', method: 'DELETE', path: `${V}/applications/${enc(id)}` }).catch(ignoreNotFound);
}

export async function addPassword(s: Settings, appObjectId: string, displayName: string, endDateTime: string): Promise<PasswordCredential> {
  const body = { passwordCredential: { displayName, endDateTime } };
  const r = need(
    await rest<PasswordCredential>(s, { api: 'graph', method: 'POST', path: `${V}/applications/${enc(appObjectId)}/addPassword`, body }),
    'addPassword',
  );
  if (!r.secretText || !r.keyId) throw new CloudError('server', 502, 'the graph answered addPassword without a secret');
  return r;
}

export async function removePassword(s: Settings, appObjectId: string, keyId: string): Promise<void> {
  await rest(s, { api: 'graph', method: 'POST', path: `${V}/applications/${enc(appObjectId)}/removePassword`, body: { keyId } }).catch(
    ignoreNotFound,
  );
}

export const createServicePrincipal = async (s: Settings, appId: string) =>
  need(
    await rest<DirectoryObject>(s, { api: 'graph', method: 'POST', path: `${V}/servicePrincipals`, body: { appId } }),
    'create service principal',
  );

export async function findServicePrincipals(s: Settings, appId: string): Promise<DirectoryObject[]> {
  const r = await rest<{ value?: DirectoryObject[] }>(s, {
    api: 'graph',
    method: 'GET',
    path: `${V}/servicePrincipals?$filter=${enc(`appId eq ${odata(appId)}`)}`,
  });
  return r?.value ?? [];
}

export async function deleteServicePrincipal(s: Settings, id: string): Promise<void> {
  await rest(s, { api: 'graph', method: 'DELETE', path: `${V}/servicePrincipals/${enc(id)}` }).catch(ignoreNotFound);
}

export const getGroup = async (s: Settings, id: string) =>
  need(await rest<DirectoryObject>(s, { api: 'graph', method: 'GET', path: `${V}/groups/${enc(id)}` }), 'get group');

export async function findGroups(s: Settings, displayName: string): Promise<DirectoryObject[]> {
  const r = await rest<{ value?: DirectoryObject[] }>(s, {
    api: 'graph',
    method: 'GET',
    path: `${V}/groups?$filter=${enc(`displayName eq ${odata(displayName)}`)}`,
  });
  return r?.value ?? [];
}

/** Adds a member; one already there counts as added. */
export async function addGroupMember(s: Settings, groupId: string, memberId: string): Promise<void> {
  const body = { '@odata.id': `${s.scopes.graph}${V}/directoryObjects/${memberId}` };
  await rest(s, { api: 'graph', method: 'POST', path: `${V}/groups/${enc(groupId)}/members/$ref`, body }).catch((e: unknown) => {
    if (e instanceof CloudError && e.kind === 'invalid' && /already exist/i.test(e.message)) return;
    throw e;
  });
}

export async function removeGroupMember(s: Settings, groupId: string, memberId: string): Promise<void> {
  await rest(s, { api: 'graph', method: 'DELETE', path: `${V}/groups/${enc(groupId)}/members/${enc(memberId)}/$ref` }).catch(
    ignoreNotFound,
  );
}

export function ignoreNotFound(e: unknown): void {
  if (!isNotFound(e)) throw e;
}
