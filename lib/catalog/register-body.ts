/** The register and deregister bodies of the reference catalog, read into domain records. */
import { InvalidInput } from '../domain-errors';
import { checkName } from './names';
import { fail, isObj, optBool, optObject, optPort, optString, optStringMap, optStrings, pick, type Obj } from './decode';
import type { CheckInput, Deregistration, Registration, ServiceAddress, ServiceInput } from './records';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STATUSES = ['passing', 'warning', 'critical', 'maintenance'] as const;

export function readRegistration(body: Obj, datacenter: string): Registration {
  const node = checkName(optString(body, 'Node', ''), 'node name');
  checkDatacenter(optString(body, 'Datacenter', ''), datacenter);
  const id = optString(body, 'ID', '');
  if (id && !UUID.test(id)) throw new InvalidInput(`Bad node ID: ${JSON.stringify(id.slice(0, 64))} is not a UUID`);
  const svc = optObject(body, 'Service', '');
  const checks = [...(optObject(body, 'Check', '') ? [optObject(body, 'Check', '')!] : []), ...checkList(body)];
  if (checks.length > 32) fail('Checks', 'more than 32 checks');
  return {
    node,
    id,
    address: optString(body, 'Address', ''),
    datacenter,
    taggedAddresses: optStringMap(body, 'TaggedAddresses', '', /^[A-Za-z0-9_.:-]{1,64}$/),
    meta: optStringMap(body, 'NodeMeta', ''),
    skipNodeUpdate: optBool(body, 'SkipNodeUpdate', ''),
    ...(svc ? { service: readService(svc) } : {}),
    checks: checks.map((c, i) => readCheck(c, node, `Checks[${i}].`)),
  };
}

function checkList(body: Obj): Obj[] {
  const v = pick(body, 'Checks');
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every(isObj)) fail('Checks', 'expected an array of objects');
  return v;
}

function readService(s: Obj): ServiceInput {
  const service = checkName(optString(s, 'Service', 'Service.'), 'service name');
  return {
    id: checkName(optString(s, 'ID', 'Service.') || service, 'service ID'),
    service,
    tags: optStrings(s, 'Tags', 'Service.'),
    address: optString(s, 'Address', 'Service.'),
    taggedAddresses: serviceAddresses(s),
    meta: optStringMap(s, 'Meta', 'Service.'),
    port: optPort(s, 'Port', 'Service.'),
    enableTagOverride: optBool(s, 'EnableTagOverride', 'Service.'),
  };
}

function serviceAddresses(s: Obj): Record<string, ServiceAddress> | null {
  const m = optObject(s, 'TaggedAddresses', 'Service.');
  if (!m) return null;
  const entries = Object.entries(m);
  if (entries.length > 16) fail('Service.TaggedAddresses', 'more than 16 entries');
  // Own properties (fromEntries), so a key such as `__proto__` is kept as data.
  const out = entries.map(([k, v]): [string, ServiceAddress] => {
    const path = `Service.TaggedAddresses.${k.slice(0, 64)}.`;
    if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(k)) fail('Service.TaggedAddresses', `invalid key ${JSON.stringify(k.slice(0, 64))}`);
    if (!isObj(v)) fail(path.slice(0, -1), 'expected an object with Address and Port');
    return [k, { address: optString(v, 'Address', path), port: optPort(v, 'Port', path) }];
  });
  return out.length ? Object.fromEntries(out) : null;
}

function readCheck(c: Obj, node: string, path: string): CheckInput {
  const checkNode = optString(c, 'Node', path);
  if (checkNode && checkNode !== node)
    throw new InvalidInput(`Node mismatch: check ${path.slice(0, -1)} names node "${checkNode.slice(0, 64)}"`);
  const name = optString(c, 'Name', path);
  const status = optString(c, 'Status', path) || 'critical';
  if (!(STATUSES as readonly string[]).includes(status)) fail(`${path}Status`, `expected one of ${STATUSES.join(', ')}`);
  const serviceId = optString(c, 'ServiceID', path);
  return {
    checkId: checkName(optString(c, 'CheckID', path) || name, 'check ID'),
    name,
    status: status as CheckInput['status'],
    notes: optString(c, 'Notes', path, 4096),
    output: optString(c, 'Output', path, 4096),
    serviceId: serviceId ? checkName(serviceId, 'service ID') : '',
  };
}

export function readDeregistration(body: Obj, datacenter: string): Deregistration {
  const node = checkName(optString(body, 'Node', ''), 'node name');
  checkDatacenter(optString(body, 'Datacenter', ''), datacenter);
  const serviceId = optString(body, 'ServiceID', '');
  const checkId = optString(body, 'CheckID', '');
  return {
    node,
    ...(serviceId ? { serviceId: checkName(serviceId, 'service ID') } : {}),
    ...(checkId ? { checkId: checkName(checkId, 'check ID') } : {}),
  };
}

export function checkDatacenter(given: string, ours: string): void {
  if (given && given !== ours) throw new InvalidInput(`No path to datacenter "${given.slice(0, 64)}"`);
}
