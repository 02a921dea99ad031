/**
 * The cost of the input limits (lib/http/json-limits.ts) that every request body passes: the
 * checker's time next to JSON.parse's on the same text, in process, for a typical 1 KB body (a
 * PKI issue request with metadata) and three 1 MiB bodies (a KV secret of many small entries,
 * nested records 6 levels deep, one long string such as a PEM bundle), plus the worst case a
 * 1 MiB body can be (an array of ~500,000 zeros, refused at the 100,000th value). Medians of
 * BENCH_ROUNDS rounds (default 7), each timing enough iterations to run ~200 ms.
 *
 *   npx tsx bench/json-limits.ts
 */
import { jsonLimitExceeded } from '../lib/http/json-limits';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const MIB = 1024 * 1024;

function typical(): string {
  return JSON.stringify({
    common_name: 'service-a.internal.example.com',
    alt_names: 'service-a.example.com,service-a.prod.example.com,a.example.com',
    ip_sans: ['10.0.0.12', '10.0.0.13'],
    ttl: '72h',
    format: 'pem',
    private_key_format: 'der',
    exclude_cn_from_sans: false,
    not_after: '',
    meta: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`label_${i}`, `value-of-the-label-number-${i}-xyz`])),
    user_ids: ['alice', 'bob', 'carol'],
    remove_roots_from_chain: true,
  }).padEnd(1024, ' ');
}

/** A KV secret of many entries: ~1 MiB of short keys and values. */
function wide(): string {
  const data: Record<string, string> = {};
  for (let i = 0; JSON.stringify(data).length < MIB - 64; i++) data[`key-${i}`] = `value-${i}-${'x'.repeat(20)}`;
  return JSON.stringify({ data });
}

/** Records nested 6 levels (catalog-registration-like objects in lists). */
function nested(): string {
  const item = (i: number) => ({ Node: `n${i}`, Meta: { a: 'x', b: ['y', { c: [1, 2, { d: 'z' }] }] }, Port: i });
  const list: unknown[] = [];
  for (let i = 0; JSON.stringify(list).length < MIB - 256; i++) list.push(item(i));
  return JSON.stringify({ items: list });
}

function longString(): string {
  return JSON.stringify({ pem_bundle: 'A'.repeat(MIB - 64) });
}

function zeros(): string {
  return '[' + Array.from({ length: (MIB - 2) / 2 }, () => '0').join(',') + ']';
}

function timeOf(fn: () => void): number {
  fn();
  let n = 1;
  for (;;) {
    const t = performance.now();
    for (let i = 0; i < n; i++) fn();
    const ms = performance.now() - t;
    if (ms > 200) return ms / n;
    n *= 2;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => (ms < 0.1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);

const bodies: [string, string][] = [
  ['typical 1 KB (PKI issue)', typical()],
  ['1 MiB KV secret, many entries', wide()],
  ['1 MiB nested records', nested()],
  ['1 MiB one string', longString()],
  ['1 MiB of zeros (refused)', zeros()],
];

console.log('| body | bytes | values | JSON.parse | check | check / parse | verdict |');
console.log('|---|---|---|---|---|---|---|');
for (const [name, text] of bodies) {
  const value = JSON.parse(text) as unknown;
  const verdict = jsonLimitExceeded(value) ?? 'passes';
  const values = countValues(value);
  const parse: number[] = [];
  const check: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    parse.push(timeOf(() => JSON.parse(text)));
    check.push(timeOf(() => jsonLimitExceeded(value)));
  }
  const [p, c] = [median(parse), median(check)];
  console.log(`| ${name} | ${text.length} | ${values} | ${fmt(p)} | ${fmt(c)} | ${((c / p) * 100).toFixed(0)}% | ${verdict} |`);
}
console.log(`\nnode ${process.version}; medians of ${ROUNDS} rounds`);

/** Every value in `v`, the top one included (iteratively). */
function countValues(v: unknown): number {
  let n = 0;
  const open = [v];
  while (open.length) {
    const x = open.pop();
    n++;
    if (typeof x === 'object' && x !== null) for (const y of Array.isArray(x) ? x : Object.values(x)) open.push(y);
  }
  return n;
}
