/**
 * The DNS wire format (RFC 1035 section 4, RFC 3596 for AAAA, RFC 6891 for the OPT record) as the
 * fake needs it: read a query's header, question and OPT record; write an answer with A, AAAA,
 * TXT and SOA records. Pure functions over buffers; the servers in server.ts do the I/O.
 */
import { isIPv4, isIPv6 } from 'node:net';

export const TYPES = { A: 1, NS: 2, CNAME: 5, SOA: 6, TXT: 16, AAAA: 28, OPT: 41, ANY: 255 } as const;
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
const CLASS_IN = 1;
const QR = 0x8000;
const AA = 0x0400;
const TC = 0x0200;
const RD = 0x0100;

export interface Query {
  id: number;
  opcode: number;
  rd: boolean;
  /** The question's name as sent (its case kept; no trailing dot; '' for the root). */
  name: string;
  type: number;
  qclass: number;
  /** The UDP payload size of the query's OPT record, when it has one (EDNS). */
  ednsSize?: number;
}

/** A record to answer: `data` is its RDATA, already encoded. */
export interface WireRecord {
  name: string;
  type: number;
  ttl: number;
  data: Buffer;
}

export interface Answer {
  rcode: number;
  answers: WireRecord[];
  authority: WireRecord[];
}

export class FormatError extends Error {}

/** Reads a (possibly compressed) name at `at`; answers it and the offset just past it in place. */
function readName(msg: Buffer, at: number): { name: string; next: number } {
  const labels: string[] = [];
  let pos = at;
  let next = -1;
  for (let jumps = 0; ;) {
    const len = msg[pos];
    if (len === undefined) throw new FormatError('name runs past the message');
    if (len === 0) {
      if (next < 0) next = pos + 1;
      break;
    }
    if ((len & 0xc0) === 0xc0) {
      const low = msg[pos + 1];
      if (low === undefined || ++jumps > 16) throw new FormatError('bad compression pointer');
      if (next < 0) next = pos + 2;
      pos = ((len & 0x3f) << 8) | low;
      continue;
    }
    if (len > 63) throw new FormatError('label longer than 63');
    if (pos + 1 + len > msg.length) throw new FormatError('label runs past the message');
    labels.push(msg.toString('latin1', pos + 1, pos + 1 + len));
    pos += 1 + len;
  }
  return { name: labels.join('.'), next };
}

/** Parses a query. Throws FormatError when the message is not one (the header, when readable, is in `id`). */
export function parseQuery(msg: Buffer): Query {
  if (msg.length < 12) throw new FormatError('shorter than a header');
  const id = msg.readUInt16BE(0);
  const flags = msg.readUInt16BE(2);
  const qd = msg.readUInt16BE(4);
  const an = msg.readUInt16BE(6);
  const ns = msg.readUInt16BE(8);
  const ar = msg.readUInt16BE(10);
  if (flags & QR) throw new FormatError('a response, not a query');
  if (qd !== 1) throw new FormatError(`${qd} questions`);
  const { name, next } = readName(msg, 12);
  if (next + 4 > msg.length) throw new FormatError('question runs past the message');
  const query: Query = {
    id,
    opcode: (flags >> 11) & 0xf,
    rd: (flags & RD) !== 0,
    name,
    type: msg.readUInt16BE(next),
    qclass: msg.readUInt16BE(next + 2),
  };
  // Skip answer and authority records, then look for an OPT record among the additional ones.
  let pos = next + 4;
  for (let i = 0; i < an + ns + ar; i++) {
    const rr = readName(msg, pos);
    if (rr.next + 10 > msg.length) throw new FormatError('record runs past the message');
    const type = msg.readUInt16BE(rr.next);
    const rdlen = msg.readUInt16BE(rr.next + 8);
    if (i >= an + ns && type === TYPES.OPT) query.ednsSize = msg.readUInt16BE(rr.next + 2);
    pos = rr.next + 10 + rdlen;
    if (pos > msg.length) throw new FormatError('record data runs past the message');
  }
  return query;
}

/** The query's id, or 0 when not even that can be read. */
export const idOf = (msg: Buffer): number => (msg.length >= 2 ? msg.readUInt16BE(0) : 0);

function encodeName(name: string): Buffer {
  const labels = name === '' ? [] : name.split('.');
  return Buffer.concat([
    ...labels.map((l) => {
      const b = Buffer.from(l, 'latin1');
      return Buffer.concat([Buffer.from([b.length]), b]);
    }),
    Buffer.from([0]),
  ]);
}

function encodeRecord(r: WireRecord, questionName: string): Buffer {
  // Records owned by the question's name point at it (offset 12); others are written out.
  const owner = r.name.toLowerCase() === questionName.toLowerCase() ? Buffer.from([0xc0, 0x0c]) : encodeName(r.name);
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(r.type, 0);
  fixed.writeUInt16BE(CLASS_IN, 2);
  fixed.writeUInt32BE(r.ttl, 4);
  fixed.writeUInt16BE(r.data.length, 8);
  return Buffer.concat([owner, fixed, r.data]);
}

/**
 * The response to `q`. `limit` is the largest message the transport takes (UDP: 512, or the
 * query's EDNS size); a longer answer is sent truncated (TC set, no records) so the client
 * retries over TCP.
 */
export function encodeResponse(q: Query, a: Answer, limit = 65_535): Buffer {
  const question = Buffer.concat([encodeName(q.name), Buffer.from([q.type >> 8, q.type & 0xff, q.qclass >> 8, q.qclass & 0xff])]);
  const opt = q.ednsSize === undefined ? undefined : optRecord();
  const build = (answers: WireRecord[], authority: WireRecord[], tc: boolean) => {
    const header = Buffer.alloc(12);
    header.writeUInt16BE(q.id, 0);
    header.writeUInt16BE(QR | (q.opcode << 11) | AA | (tc ? TC : 0) | (q.rd ? RD : 0) | (a.rcode & 0xf), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    header.writeUInt16BE(authority.length, 8);
    header.writeUInt16BE(opt ? 1 : 0, 10);
    return Buffer.concat([
      header,
      question,
      ...answers.map((r) => encodeRecord(r, q.name)),
      ...authority.map((r) => encodeRecord(r, q.name)),
      ...(opt ? [opt] : []),
    ]);
  };
  const full = build(a.answers, a.authority, false);
  return full.length <= limit ? full : build([], [], true);
}

/** An OPT pseudo-record: root owner, our UDP payload size (1232), no extended rcode, no options. */
function optRecord(): Buffer {
  const b = Buffer.alloc(11);
  b.writeUInt16BE(TYPES.OPT, 1);
  b.writeUInt16BE(1232, 3);
  return b;
}

/** A response carrying only an rcode, for a query that could not be read past its header. */
export function errorResponse(id: number, rcode: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(QR | rcode, 2);
  return header;
}

export function aData(address: string): Buffer {
  if (!isIPv4(address)) throw new Error(`not an IPv4 address: ${address}`);
  return Buffer.from(address.split('.').map(Number));
}

export function aaaaData(address: string): Buffer {
  if (!isIPv6(address)) throw new Error(`not an IPv6 address: ${address}`);
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** TXT RDATA: the value as character-strings of at most 255 bytes each. */
export function txtData(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i === 0 || i < bytes.length; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

/** SOA RDATA for `zone` (ns.<zone>, hostmaster.<zone>, timers of a test zone, minimum TTL 0). */
export function soaData(zone: string, serial: number): Buffer {
  const suffix = zone === '' ? 'fake' : zone;
  const timers = Buffer.alloc(20);
  timers.writeUInt32BE(serial >>> 0, 0);
  timers.writeUInt32BE(3600, 4);
  timers.writeUInt32BE(600, 8);
  timers.writeUInt32BE(86400, 12);
  timers.writeUInt32BE(0, 16);
  return Buffer.concat([encodeName(`ns.${suffix}`), encodeName(`hostmaster.${suffix}`), timers]);
}
