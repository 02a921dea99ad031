/**
 * The reference catalog's response shapes (PascalCase on this wire), built from the records.
 * With `translate` (translate_wan_addrs), addresses are the WAN ones where a node or service
 * has a `wan` tagged address.
 */
import type { KvEntry } from './kv';
import type { CheckRecord, NodeRecord, ServiceRecord } from './records';

export function kvShape(e: KvEntry) {
  return {
    LockIndex: e.lockIndex,
    Key: e.key,
    Flags: e.flags,
    Value: e.value ? e.value.toString('base64') : null,
    CreateIndex: e.createIndex,
    ModifyIndex: e.modifyIndex,
  };
}

const nodeAddress = (n: NodeRecord, translate: boolean) => (translate && n.taggedAddresses?.wan) || n.address;

export function nodeShape(n: NodeRecord, translate: boolean) {
  return {
    ID: n.id,
    Node: n.node,
    Address: nodeAddress(n, translate),
    Datacenter: n.datacenter,
    TaggedAddresses: n.taggedAddresses,
    Meta: n.meta,
    CreateIndex: n.createIndex,
    ModifyIndex: n.modifyIndex,
  };
}

const serviceAddress = (s: ServiceRecord, translate: boolean) => (translate && s.taggedAddresses?.wan?.address) || s.address;
const taggedShape = (s: ServiceRecord) =>
  s.taggedAddresses
    ? Object.fromEntries(Object.entries(s.taggedAddresses).map(([k, v]) => [k, { Address: v.address, Port: v.port }]))
    : null;

/** An entry of catalog/node/<name>'s `Services`. */
export function nodeServiceShape(s: ServiceRecord, translate: boolean) {
  return {
    ID: s.id,
    Service: s.service,
    Tags: s.tags,
    Address: serviceAddress(s, translate),
    TaggedAddresses: taggedShape(s),
    Meta: s.meta,
    Port: s.port,
    Weights: { Passing: 1, Warning: 1 },
    EnableTagOverride: s.enableTagOverride,
    CreateIndex: s.createIndex,
    ModifyIndex: s.modifyIndex,
  };
}

/** An entry of catalog/service/<name>. */
export function serviceNodeShape(s: ServiceRecord, n: NodeRecord | undefined, translate: boolean) {
  return {
    ID: n?.id ?? '',
    Node: s.node,
    Address: n ? nodeAddress(n, translate) : '',
    Datacenter: n?.datacenter ?? '',
    TaggedAddresses: n?.taggedAddresses ?? null,
    NodeMeta: n?.meta ?? null,
    ServiceKind: '',
    ServiceID: s.id,
    ServiceName: s.service,
    ServiceTags: s.tags,
    ServiceAddress: serviceAddress(s, translate),
    ServiceTaggedAddresses: taggedShape(s),
    ServiceWeights: { Passing: 1, Warning: 1 },
    ServiceMeta: s.meta ?? {},
    ServicePort: s.port,
    ServiceEnableTagOverride: s.enableTagOverride,
    CreateIndex: s.createIndex,
    ModifyIndex: s.modifyIndex,
  };
}

/** A check as the health endpoints answer it; `tags` are its service's. */
export function healthCheckShape(c: CheckRecord, tags: string[]) {
  return {
    Node: c.node,
    CheckID: c.checkId,
    Name: c.name,
    Status: c.status,
    Notes: c.notes,
    Output: c.output,
    ServiceID: c.serviceId,
    ServiceName: c.serviceName,
    ServiceTags: c.serviceId ? tags : [],
    Type: '',
    Definition: {},
    CreateIndex: c.createIndex,
    ModifyIndex: c.modifyIndex,
  };
}

/** An entry of health/service/<name>: the node, the instance and the checks that apply to it. */
export function checkServiceNodeShape(s: ServiceRecord, n: NodeRecord | undefined, checks: CheckRecord[], translate: boolean) {
  const node = n
    ? nodeShape(n, translate)
    : { ID: '', Node: s.node, Address: '', Datacenter: '', TaggedAddresses: null, Meta: null, CreateIndex: 0, ModifyIndex: 0 };
  return { Node: node, Service: nodeServiceShape(s, translate), Checks: checks.map((c) => healthCheckShape(c, s.tags)) };
}

/**
 * agent/members: a registered node as the reference agent lists a LAN member, or with `wan`
 * (`?wan=1`) a WAN member: named `<node>.<datacenter>`, at its WAN address and the WAN port.
 */
export function memberShape(n: NodeRecord, translate: boolean, wan = false) {
  return {
    Name: wan ? `${n.node}.${n.datacenter}` : n.node,
    Addr: nodeAddress(n, translate || wan),
    Port: wan ? 8302 : 8301,
    Tags: wan ? { dc: n.datacenter, role: 'node', id: n.id } : { dc: n.datacenter, role: 'node', id: n.id, segment: '' },
    Status: 1,
    ProtocolMin: 1,
    ProtocolMax: 5,
    ProtocolCur: 2,
    DelegateMin: 2,
    DelegateMax: 5,
    DelegateCur: 4,
  };
}
