/** The catalog's stored records (camelCase inside; wire shapes are in shapes.ts). */
export type StringMap = Record<string, string>;

export type NodeRecord = {
  id: string;
  node: string;
  address: string;
  datacenter: string;
  taggedAddresses: StringMap | null;
  meta: StringMap | null;
  createIndex: number;
  modifyIndex: number;
};

export type ServiceAddress = {
  address: string;
  port: number;
};

export type ServiceInput = {
  id: string;
  service: string;
  tags: string[];
  address: string;
  taggedAddresses: Record<string, ServiceAddress> | null;
  meta: StringMap | null;
  port: number;
  enableTagOverride: boolean;
};

export type ServiceRecord = ServiceInput & {
  node: string;
  createIndex: number;
  modifyIndex: number;
};

export type CheckInput = {
  checkId: string;
  name: string;
  status: 'passing' | 'warning' | 'critical' | 'maintenance';
  notes: string;
  output: string;
  serviceId: string;
};

export type CheckRecord = CheckInput & {
  node: string;
  serviceName: string;
  createIndex: number;
  modifyIndex: number;
};

export interface Registration {
  node: string;
  id: string;
  address: string;
  datacenter: string;
  taggedAddresses: StringMap | null;
  meta: StringMap | null;
  skipNodeUpdate: boolean;
  service?: ServiceInput;
  checks: CheckInput[];
}

export interface Deregistration {
  node: string;
  serviceId?: string;
  checkId?: string;
}
