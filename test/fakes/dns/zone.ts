/**
 * The fake's records: A, AAAA and TXT (several values per name and type), and what an
 * authoritative server answers for a question: the records, NODATA (the name exists, not the
 * type) or NXDOMAIN, with the zone's SOA in the authority section of a negative answer, and
 * REFUSED for a name outside the zones it serves.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { aaaaData, aData, RCODE, soaData, txtData, TYPES, type Answer, type WireRecord } from './wire';

export type RecordType = 'A' | 'AAAA' | 'TXT';
export const RECORD_TYPES: readonly RecordType[] = ['A', 'AAAA', 'TXT'];

export interface DnsRecord {
  name: string;
  type: RecordType;
  value: string;
}

const TTL = 0;
const LABEL = /^(?!-)[a-z0-9_*-]{1,63}(?<!-)$/;

/** Lower case, no trailing dot ('' for the root). */
export function normalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** Why a name and type cannot be served, or undefined when they can. */
export function nameTypeProblem(r: { name?: unknown; type?: unknown }): string | undefined {
  if (typeof r.name !== 'string' || r.name === '') return 'name must be a non-empty string';
  const name = normalName(r.name);
  if (name.length > 253 || !name.split('.').every((l) => LABEL.test(l))) return `not a DNS name: ${JSON.stringify(r.name)}`;
  if (typeof r.type !== 'string' || !RECORD_TYPES.includes(r.type as RecordType)) return `type must be one of ${RECORD_TYPES.join(', ')}`;
  return undefined;
}

/** Why a record cannot be served, or undefined when it can. */
export function recordProblem(r: { name?: unknown; type?: unknown; value?: unknown }): string | undefined {
  const problem = nameTypeProblem(r);
  if (problem) return problem;
  if (typeof r.value !== 'string') return 'value must be a string';
  if (r.type === 'A' && !isIPv4(r.value)) return `not an IPv4 address: ${JSON.stringify(r.value)}`;
  if (r.type === 'AAAA' && !isIPv6(r.value)) return `not an IPv6 address: ${JSON.stringify(r.value)}`;
  if (r.type === 'TXT' && Buffer.byteLength(r.value) > 4000) return 'TXT value longer than 4000 bytes';
  return undefined;
}

function must(r: DnsRecord): DnsRecord {
  const problem = recordProblem(r);
  if (problem) throw new Error(problem);
  return { name: normalName(r.name), type: r.type, value: r.value };
}

function rdata(r: DnsRecord): Buffer {
  if (r.type === 'A') return aData(r.value);
  if (r.type === 'AAAA') return aaaaData(r.value);
  return txtData(r.value);
}

export class Zone {
  private readonly byName = new Map<string, DnsRecord[]>();
  private serial = 1;
  private readonly zones: string[];

  /** `zones`: the names served (a zone and everything under it); [''] is the whole tree. */
  constructor(zones: string[]) {
    this.zones = zones.map(normalName);
  }

  /** Adds a value (an existing equal value is kept once). */
  add(record: DnsRecord): void {
    const r = must(record);
    const list = this.byName.get(r.name) ?? [];
    if (!list.some((x) => x.type === r.type && x.value === r.value)) list.push(r);
    this.byName.set(r.name, list);
    this.serial++;
  }

  /** Removes one value, or every value of the type when `value` is undefined. Answers how many went. */
  remove(name: string, type: RecordType, value?: string): number {
    const key = normalName(name);
    const list = this.byName.get(key) ?? [];
    const kept = list.filter((x) => x.type !== type || (value !== undefined && x.value !== value));
    if (kept.length) this.byName.set(key, kept);
    else this.byName.delete(key);
    this.serial++;
    return list.length - kept.length;
  }

  /** Replaces every value of the type at the name. */
  set(name: string, type: RecordType, values: string[]): void {
    for (const value of values) must({ name, type, value });
    this.remove(name, type);
    for (const value of values) this.add({ name, type, value });
  }

  clear(): void {
    this.byName.clear();
    this.serial++;
  }

  records(): DnsRecord[] {
    return [...this.byName.values()].flat().map((r) => ({ ...r }));
  }

  /** The zone `name` falls in (the longest served suffix), or undefined when it is outside them all. */
  private zoneOf(name: string): string | undefined {
    return this.zones.filter((z) => z === '' || name === z || name.endsWith(`.${z}`)).sort((a, b) => b.length - a.length)[0];
  }

  /** What the server answers for a question of `type` about `name` (as asked). */
  answer(asked: string, type: number): Answer {
    const name = normalName(asked);
    const zone = this.zoneOf(name);
    if (zone === undefined) return { rcode: RCODE.REFUSED, answers: [], authority: [] };
    const soa: WireRecord = { name: zone, type: TYPES.SOA, ttl: TTL, data: soaData(zone, this.serial) };
    const list = this.byName.get(name) ?? [];
    const answers: WireRecord[] = list
      .filter((r) => type === TYPES.ANY || TYPES[r.type] === type)
      .map((r) => ({ name: asked, type: TYPES[r.type], ttl: TTL, data: rdata(r) }));
    if (name === zone && (type === TYPES.SOA || type === TYPES.ANY)) answers.push({ ...soa, name: asked });
    if (answers.length) return { rcode: RCODE.NOERROR, answers, authority: [] };
    // The apex always exists; any other name exists when it or a name under it has records.
    const exists = name === zone || [...this.byName.keys()].some((n) => n === name || n.endsWith(`.${name}`));
    return { rcode: exists ? RCODE.NOERROR : RCODE.NXDOMAIN, answers: [], authority: [soa] };
  }
}
