/**
 * Nodes, services and checks. Layout in the catalog partition:
 *   node/<node>                        the node
 *   nsvc/<node>/<service id>           a service instance, by node (catalog/node/<node>)
 *   sname/<service>/<node>/<id>        the same record, by service name (catalog/service/<name>)
 *   check/<node>/<check id>            a check
 * Writes go node, by-node, by-name; removals go the other way round, so a crash between two
 * steps leaves a record that repeating the request (register or deregister) completes.
 */
import { InvalidInput } from '../domain-errors';
import type { Partition } from '../store/store';
import type { ModifyIndex } from './modify-index';
import type { CheckRecord, Deregistration, NodeRecord, Registration, ServiceRecord } from './records';

const nodeKey = (n: string) => `node/${n}`;
const byNode = (n: string, id: string) => `nsvc/${n}/${id}`;
const byName = (s: ServiceRecord) => `sname/${s.service}/${s.node}/${s.id}`;
const checkKey = (n: string, id: string) => `check/${n}/${id}`;

export class Catalog {
  constructor(
    private readonly part: Partition,
    private readonly index: ModifyIndex,
  ) {}

  async node(name: string): Promise<NodeRecord | undefined> {
    return (await this.part.get<NodeRecord>(nodeKey(name)))?.value;
  }

  async service(node: string, id: string): Promise<ServiceRecord | undefined> {
    return (await this.part.get<ServiceRecord>(byNode(node, id)))?.value;
  }

  async check(node: string, id: string): Promise<CheckRecord | undefined> {
    return (await this.part.get<CheckRecord>(checkKey(node, id)))?.value;
  }

  nodes(): Promise<NodeRecord[]> {
    return this.all<NodeRecord>('node/');
  }

  servicesOf(node: string): Promise<ServiceRecord[]> {
    return this.all<ServiceRecord>(`nsvc/${node}/`);
  }

  checksOf(node: string): Promise<CheckRecord[]> {
    return this.all<CheckRecord>(`check/${node}/`);
  }

  allChecks(): Promise<CheckRecord[]> {
    return this.all<CheckRecord>('check/');
  }

  /** Every service instance, ordered by service name. */
  instances(): Promise<ServiceRecord[]> {
    return this.all<ServiceRecord>('sname/');
  }

  instancesOf(service: string): Promise<ServiceRecord[]> {
    return this.all<ServiceRecord>(`sname/${service}/`);
  }

  async register(r: Registration): Promise<void> {
    const existing = await this.node(r.node);
    if (!existing && !r.address) throw new InvalidInput('Must provide address if SkipNodeUpdate is not set');
    // Every check's service is known before anything is written.
    const serviceNames = await Promise.all(r.checks.map((c) => this.serviceNameFor(r, c.serviceId, c.checkId)));
    const idx = await this.index.next();
    if (!existing || !r.skipNodeUpdate) await this.putNode(r, existing, idx);
    if (r.service) await this.putService({ ...r.service, node: r.node, createIndex: idx, modifyIndex: idx });
    for (const [i, c] of r.checks.entries()) {
      const old = await this.check(r.node, c.checkId);
      const rec: CheckRecord = {
        ...c,
        node: r.node,
        serviceName: serviceNames[i] ?? '',
        createIndex: old?.createIndex ?? idx,
        modifyIndex: idx,
      };
      await this.part.put(checkKey(r.node, c.checkId), rec);
    }
    await this.index.settle();
  }

  private async serviceNameFor(r: Registration, serviceId: string, checkId: string): Promise<string> {
    if (!serviceId) return '';
    if (serviceId === r.service?.id) return r.service.service;
    const svc = await this.service(r.node, serviceId);
    if (!svc) throw new InvalidInput(`Unknown service "${serviceId}" for check "${checkId}"`);
    return svc.service;
  }

  private async putNode(r: Registration, existing: NodeRecord | undefined, idx: number): Promise<void> {
    const next: NodeRecord = {
      id: r.id || existing?.id || '',
      node: r.node,
      address: r.address || existing?.address || '',
      datacenter: r.datacenter,
      taggedAddresses: r.taggedAddresses,
      meta: r.meta,
      createIndex: existing?.createIndex ?? idx,
      modifyIndex: idx,
    };
    if (existing && same(existing, next, ['createIndex', 'modifyIndex'])) return;
    await this.part.put(nodeKey(r.node), next);
  }

  private async putService(s: ServiceRecord): Promise<void> {
    const old = await this.service(s.node, s.id);
    if (old && same(old, s, ['createIndex', 'modifyIndex'])) return;
    const rec = { ...s, createIndex: old?.createIndex ?? s.createIndex };
    await this.part.put(byNode(s.node, s.id), rec);
    await this.part.put(byName(rec), rec);
    if (old && old.service !== s.service) await this.part.delete(byName(old));
  }

  async deregister(d: Deregistration): Promise<void> {
    if (d.serviceId) await this.removeService(d.node, d.serviceId);
    if (d.checkId) await this.part.delete(checkKey(d.node, d.checkId));
    if (!d.serviceId && !d.checkId) {
      for (const s of await this.servicesOf(d.node)) await this.removeService(d.node, s.id);
      for (const c of await this.all<CheckRecord>(`check/${d.node}/`)) await this.part.delete(checkKey(d.node, c.checkId));
      await this.part.delete(nodeKey(d.node));
    }
    await this.index.settle();
  }

  private async removeService(node: string, id: string): Promise<void> {
    const svc = await this.service(node, id);
    if (!svc) return;
    for (const c of await this.all<CheckRecord>(`check/${node}/`)) {
      if (c.serviceId === id) await this.part.delete(checkKey(node, c.checkId));
    }
    await this.part.delete(byName(svc));
    await this.part.delete(byNode(node, id));
  }

  private async all<T>(prefix: string): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.list<T>(prefix, cursor ? { cursor } : {});
      out.push(...page.items.map((i) => i.value));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }
}

function same<T extends object>(a: T, b: T, ignore: (keyof T)[]): boolean {
  const strip = (o: T) =>
    JSON.stringify(
      Object.entries(o)
        .filter(([k]) => !ignore.includes(k as keyof T))
        .sort(([x], [y]) => (x < y ? -1 : 1)),
    );
  return strip(a) === strip(b);
}
