/** PEM text: encoding one block, finding the blocks of a bundle. */
import { InvalidInput } from '../domain-errors';

export interface PemBlock {
  label: string;
  der: Buffer;
}

export function toPem(label: string, der: Buffer): string {
  const b64 = der.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----`;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]{1,40})-----([A-Za-z0-9+/=\s]*?)-----END \1-----/g;

const BEGIN = /-----BEGIN [^\n]*?-----/g;

/**
 * Every PEM block of `text`; refuses text with none, and a block begun but not readable (no
 * matching END line, or a body that is not base64), which would otherwise be passed over.
 */
export function pemBlocks(text: string, what = 'PEM data'): PemBlock[] {
  const out: PemBlock[] = [];
  const starts = new Set<number>();
  for (const m of text.matchAll(BLOCK)) {
    const der = Buffer.from((m[2] ?? '').replace(/\s+/g, ''), 'base64');
    if (der.length === 0) throw new InvalidInput(`${what}: an empty PEM block`);
    out.push({ label: m[1] ?? '', der });
    starts.add(m.index);
  }
  const begun = [...text.matchAll(BEGIN)];
  const bad = begun.findIndex((m) => !starts.has(m.index));
  const malformed = 'malformed (no matching END line, or characters outside base64)';
  if (!out.length) throw new InvalidInput(`${what} contains no PEM block${bad >= 0 ? `: block ${bad + 1} is ${malformed}` : ''}`);
  if (bad >= 0) throw new InvalidInput(`${what}: PEM block ${bad + 1} is ${malformed}`);
  return out;
}

/** Exactly one block with one of `labels`. */
export function onePem(text: string, labels: string[], what: string): Buffer {
  const blocks = pemBlocks(text, what).filter((b) => labels.includes(b.label));
  const first = blocks[0];
  if (!first) throw new InvalidInput(`${what} must be PEM of type ${labels.join(' or ')}`);
  return first.der;
}
