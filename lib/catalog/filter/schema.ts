/**
 * The fields a `?filter` may select on each endpoint: the PascalCase fields of the answer's
 * own shape (shapes.ts), as in the reference catalog. Maps take any key (`Meta.env`,
 * `Meta["my-key"]`); a name selected through a list of objects (`Checks.Status`) matches when
 * any element matches, and a number (`Checks.0.Status`) selects one element.
 */
export type FieldType = 'string' | 'int' | 'bool' | { list: FieldType } | { map: FieldType } | { struct: Record<string, FieldType> };

const strings: FieldType = { list: 'string' };
const stringMap: FieldType = { map: 'string' };
const indexes = { CreateIndex: 'int', ModifyIndex: 'int' } as const;
const weights: FieldType = { struct: { Passing: 'int', Warning: 'int' } };
const serviceAddress: FieldType = { struct: { Address: 'string', Port: 'int' } };

export const NODE: FieldType = {
  struct: {
    ID: 'string',
    Node: 'string',
    Address: 'string',
    Datacenter: 'string',
    TaggedAddresses: stringMap,
    Meta: stringMap,
    ...indexes,
  },
};

export const NODE_SERVICE: FieldType = {
  struct: {
    ID: 'string',
    Service: 'string',
    Tags: strings,
    Address: 'string',
    TaggedAddresses: { map: serviceAddress },
    Meta: stringMap,
    Port: 'int',
    Weights: weights,
    EnableTagOverride: 'bool',
    ...indexes,
  },
};

export const SERVICE_NODE: FieldType = {
  struct: {
    ID: 'string',
    Node: 'string',
    Address: 'string',
    Datacenter: 'string',
    TaggedAddresses: stringMap,
    NodeMeta: stringMap,
    ServiceKind: 'string',
    ServiceID: 'string',
    ServiceName: 'string',
    ServiceTags: strings,
    ServiceAddress: 'string',
    ServiceTaggedAddresses: { map: serviceAddress },
    ServiceWeights: weights,
    ServiceMeta: stringMap,
    ServicePort: 'int',
    ServiceEnableTagOverride: 'bool',
    ...indexes,
  },
};

export const MEMBER: FieldType = {
  struct: {
    Name: 'string',
    Addr: 'string',
    Port: 'int',
    Tags: stringMap,
    Status: 'int',
    ProtocolMin: 'int',
    ProtocolMax: 'int',
    ProtocolCur: 'int',
    DelegateMin: 'int',
    DelegateMax: 'int',
    DelegateCur: 'int',
  },
};

export const HEALTH_CHECK: FieldType = {
  struct: {
    Node: 'string',
    CheckID: 'string',
    Name: 'string',
    Status: 'string',
    Notes: 'string',
    Output: 'string',
    ServiceID: 'string',
    ServiceName: 'string',
    ServiceTags: strings,
    Type: 'string',
    ...indexes,
  },
};

export const CHECK_SERVICE_NODE: FieldType = { struct: { Node: NODE, Service: NODE_SERVICE, Checks: { list: HEALTH_CHECK } } };
