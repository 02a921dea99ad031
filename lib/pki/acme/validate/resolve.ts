/**
 * The DNS lookups of a validation: A/AAAA for http-01 and tls-alpn-01, TXT for dns-01. When
 * config/acme `dns_resolver` is set every lookup goes to it (a c-ares resolver pointed at that
 * server alone); otherwise the system resolver (getaddrinfo for addresses, the configured
 * nameservers for TXT). A lookup ends when the validation's budget does.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { resolverServer } from './address';
import { fail, PROBLEM, type ValidationContext, type ValidationOutcome } from './types';

/** Each query's wait and tries on the configured resolver (within the whole budget). */
const QUERY_TIMEOUT_MS = 2_000;
const QUERY_TRIES = 2;

type Lookup<T> = { ok: true; value: T } | { ok: false; outcome: ValidationOutcome };

/** Codes meaning "the name or the record is not there", as against a failed lookup. */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

function codeOf(e: unknown): string {
  return (e as { code?: string }).code ?? 'an error';
}

/** A resolver for the setting, or an outcome saying the setting is unusable. */
function resolverFor(ctx: ValidationContext): Lookup<dns.Resolver | undefined> {
  if (ctx.settings.resolver === undefined || ctx.settings.resolver === '') return { ok: true, value: undefined };
  const server = resolverServer(ctx.settings.resolver);
  if (!server) return { ok: false, outcome: fail(PROBLEM.dns, 'dns_resolver is not an address ("ip", "ip:port" or "[ipv6]:port")') };
  const r = new dns.Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
  r.setServers([server]);
  return { ok: true, value: r };
}

/** Runs a lookup, cancelled (and answered as a timeout) when the budget ends. */
async function bounded<T>(ctx: ValidationContext, resolver: dns.Resolver | undefined, run: () => Promise<T>): Promise<T> {
  if (ctx.signal.aborted) throw Object.assign(new Error('timed out'), { code: 'ETIMEOUT' });
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      resolver?.cancel();
      reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' }));
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([run(), aborted]);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The addresses of `name` to try, IPv6 first then IPv4 (one of each at most, as the reference
 * CA tries them). An IP address is its own answer.
 */
export async function addressesOf(name: string, what: string, ctx: ValidationContext): Promise<Lookup<string[]>> {
  if (isIP(name)) return { ok: true, value: [name] };
  const r = resolverFor(ctx);
  if (!r.ok) return r;
  const resolver = r.value;
  try {
    let v6: string[] = [];
    let v4: string[] = [];
    if (resolver) {
      const [six, four] = await bounded(ctx, resolver, () => Promise.allSettled([resolver.resolve6(name), resolver.resolve4(name)]));
      const failures = [six, four].flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
      v6 = six.status === 'fulfilled' ? six.value : [];
      v4 = four.status === 'fulfilled' ? four.value : [];
      const hard = failures.find((e) => !ABSENT.has(codeOf(e)));
      if (!v6.length && !v4.length && hard) throw hard;
    } else {
      const all = await bounded(ctx, undefined, () => dns.lookup(name, { all: true, order: 'verbatim' }));
      v6 = all.filter((a) => a.family === 6).map((a) => a.address);
      v4 = all.filter((a) => a.family === 4).map((a) => a.address);
    }
    const out = [v6[0], v4[0]].filter((a): a is string => a !== undefined);
    if (!out.length) return { ok: false, outcome: fail(PROBLEM.dns, `${what}: no A or AAAA record for ${name}`) };
    return { ok: true, value: out };
  } catch (e) {
    const code = codeOf(e);
    if (ABSENT.has(code)) return { ok: false, outcome: fail(PROBLEM.dns, `${what}: no A or AAAA record for ${name}`) };
    return { ok: false, outcome: fail(PROBLEM.dns, `${what}: the A/AAAA lookup of ${name} failed (${code})`) };
  }
}

/** The TXT values at `name` (each record's strings joined); an empty list when there are none. */
export async function txtOf(name: string, what: string, ctx: ValidationContext): Promise<Lookup<string[]>> {
  const r = resolverFor(ctx);
  if (!r.ok) return r;
  const resolver = r.value;
  try {
    const records = await bounded(ctx, resolver, () => (resolver ?? dns).resolveTxt(name));
    return { ok: true, value: records.map((chunks) => chunks.join('')) };
  } catch (e) {
    const code = codeOf(e);
    if (ABSENT.has(code)) return { ok: true, value: [] };
    return { ok: false, outcome: fail(PROBLEM.dns, `${what}: the TXT lookup of ${name} failed (${code})`) };
  }
}
