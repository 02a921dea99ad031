/**
 * The OCSP responder (RFC 6960): a DER request in, a DER answer out, never an exception for
 * what the client sent.
 *
 * The issuer is found by the request's name and key hashes among the mount's issuers (a
 * cross-signed copy sharing key and subject matches too, as its leaves cannot be told apart);
 * the answer is signed by a matching issuer with the `ocsp-signing` usage, the certificate's own
 * issuer first. Statuses: `revoked` (time and reason) when a revocation record names a matching
 * issuer, `good` when the mount stored the certificate as issued by one, `unknown` otherwise (a
 * serial the issuer never issued, a hash algorithm not supported here). No matching issuer: an
 * `unknown` signed by the default issuer. Matching issuers none of which may sign OCSP, or no
 * default issuer able to sign: `unauthorized`, as for config/crl ocsp_disable.
 *
 * Freshness: the revocation record is read on every request with a consistent read, so an
 * answer reflects every revocation written before it, from any instance (bound: 0). What is
 * cached cannot go stale in a way that says `good` for a revoked certificate: a certificate's
 * issuer (it never changes), the issuer list (2 s; a miss reads it again), config/crl (2 s,
 * the mount's cache), and signed answers without a nonce, reused only while the status just read
 * is the one they say (at most 60 s, and never past half their validity).
 */
import { metrics, mountOf } from '../metrics/catalog';
import { hash } from 'node:crypto';
import type { Deps } from '../deps';
import { InvalidInput, NotFoundError } from '../domain-errors';
import { logError } from '../log';
import { keyIdentifier, signatureAlgorithm } from '../keys/signer';
import type { Partition, Store } from '../store/store';
import { TtlCache } from '../ttl-cache';
import { cached } from './cache';
import { readCert } from './der/cert-reader';
import {
  buildOcspResponse,
  errorResponse,
  readOcspRequest,
  type CertId,
  type CertIdHash,
  type CertStatus,
  type OcspStatusName,
} from './der/ocsp';
import { children, readTlv } from './der/reader';
import { loadIssuer, pkiRepository, type Issuer } from './issuer';
import { pemBlocks } from './pem';
import type { PkiRepository } from './repository';
import { serialKey } from './serial';
import type { CertRecord, IssuerRecord, RevokedRecord } from './storage';

export interface OcspAnswer {
  status: OcspStatusName;
  der: Buffer;
  /** A successful answer's status of the first certificate asked about (good, revoked, unknown). */
  certStatus?: CertStatus['kind'];
}

const refuse = (status: Exclude<OcspStatusName, 'successful'>): OcspAnswer => ({ status, der: errorResponse(status) });

/** What a request hash is compared with: an issuer's subject and subjectPublicKey bits. */
interface IssuerHashInput {
  subject: Buffer;
  keyBits: Buffer;
}

const hashInputs = new Map<string, IssuerHashInput>();

function hashInput(issuer: IssuerRecord): IssuerHashInput | undefined {
  const memo = `${issuer.id}|${issuer.serial}`;
  let hit = hashInputs.get(memo);
  if (!hit) {
    const der = pemBlocks(issuer.certificate)[0]?.der;
    if (!der) return undefined;
    const cert = readCert(der);
    const bitString = children(readTlv(cert.spki).value)[1];
    if (!bitString) return undefined;
    hit = { subject: cert.subjectDer, keyBits: bitString.value.subarray(1) };
    if (hashInputs.size > 1000) hashInputs.clear();
    hashInputs.set(memo, hit);
  }
  return hit;
}

const digests = new Map<string, Buffer>();
function digest(alg: CertIdHash, data: Buffer, memo: string): Buffer {
  let d = digests.get(memo);
  if (!d) {
    d = hash(alg, data, 'buffer');
    if (digests.size > 4000) digests.clear();
    digests.set(memo, d);
  }
  return d;
}

function matches(issuer: IssuerRecord, id: CertId): boolean {
  if (!id.hash || !issuer.certificate) return false;
  const input = hashInput(issuer);
  if (!input) return false;
  const memo = `${issuer.id}|${issuer.serial}|${id.hash}`;
  return digest(id.hash, input.subject, `${memo}|n`).equals(id.nameHash) && digest(id.hash, input.keyBits, `${memo}|k`).equals(id.keyHash);
}

/** The mount's issuers: the id list through the mount's 2 s cache (or fresh), each record through the repository's. */
async function issuersOf(repo: PkiRepository, fresh: boolean): Promise<IssuerRecord[]> {
  const ids = fresh ? await repo.issuerIds() : await cached(repo.deps.store, `${repo.part.name}|ocsp/issuer-ids`, () => repo.issuerIds());
  return (await Promise.all(ids.map((id) => repo.issuer(id)))).filter((i): i is IssuerRecord => i !== undefined);
}

async function matchingIssuers(repo: PkiRepository, id: CertId): Promise<IssuerRecord[]> {
  const found = (await issuersOf(repo, false)).filter((i) => matches(i, id));
  return found.length || !id.hash ? found : (await issuersOf(repo, true)).filter((i) => matches(i, id));
}

/** Per store: the issuer of each certificate asked about (a certificate's issuer never changes). */
const certIssuers = new WeakMap<Store, TtlCache<string, string>>();

async function certIssuerId(repo: PkiRepository, serial: Buffer): Promise<string | undefined> {
  let byStore = certIssuers.get(repo.deps.store);
  if (!byStore) certIssuers.set(repo.deps.store, (byStore = new TtlCache(60_000, 20_000)));
  const key = `${repo.part.name}|${serialKey(serial)}`;
  const hit = byStore.get(key);
  if (hit !== undefined) return hit;
  const record = await repo.part.get<CertRecord>(`cert/${serialKey(serial)}`);
  if (!record) return undefined;
  const id = await repo.issuerIdOf(record.value);
  byStore.set(key, id);
  return id;
}

/** The status of one certificate among `issuers` (those the request's hashes name): the revocation read consistently, now. */
async function statusOf(repo: PkiRepository, id: CertId, issuerIds: Set<string>): Promise<{ status: CertStatus; issuerId?: string }> {
  if (id.serial.length > 20 || (id.serial[0] ?? 0) & 0x80) return { status: { kind: 'unknown' } };
  const [revoked, certIssuer] = await Promise.all([
    repo.part.get<RevokedRecord>(`revoked/${serialKey(id.serial)}`),
    certIssuerId(repo, id.serial),
  ]);
  if (revoked) {
    const by = await repo.issuerIdOf(revoked.value);
    if (issuerIds.has(by) || (certIssuer !== undefined && issuerIds.has(certIssuer)))
      return {
        status: { kind: 'revoked', at: revoked.value.revokedAt, ...(revoked.value.reason ? { reason: revoked.value.reason } : {}) },
        issuerId: by,
      };
  }
  if (certIssuer !== undefined && issuerIds.has(certIssuer)) return { status: { kind: 'good' }, issuerId: certIssuer };
  return { status: { kind: 'unknown' } };
}

const canSign = (i: IssuerRecord) => i.keyId !== '' && i.usage.includes('ocsp-signing');

/** The issuer that signs the answer about `first`, or the refusal. */
async function responderFor(
  repo: PkiRepository,
  matched: IssuerRecord[],
  preferred: string | undefined,
): Promise<IssuerRecord | 'unauthorized'> {
  const keyed = matched.filter((i) => i.keyId !== '');
  if (keyed.length) {
    const able = keyed.filter(canSign);
    return able.find((i) => i.id === preferred) ?? able[0] ?? 'unauthorized';
  }
  const fallback = await repo.findIssuer('default');
  return fallback && canSign(fallback) ? fallback : 'unauthorized';
}

/** Signed answers without a nonce, by what they say (statuses included), per store. */
const presigned = new WeakMap<Store, TtlCache<string, { der: Buffer; producedAt: number }>>();
const PRESIGNED_MS = 60_000;

async function sign(
  deps: Deps,
  issuer: Issuer,
  responses: { certId: Buffer; status: CertStatus }[],
  validSeconds: number,
  nonce: Buffer | undefined,
): Promise<Buffer> {
  let cache = presigned.get(deps.store);
  if (!cache) presigned.set(deps.store, (cache = new TtlCache(PRESIGNED_MS, 10_000)));
  const key = nonce
    ? undefined
    : [issuer.record.id, issuer.record.serial, issuer.record.revocationSignatureAlgorithm, validSeconds, JSON.stringify(responses)].join(
        '|',
      );
  const now = deps.now();
  const reuseMs = Math.min(PRESIGNED_MS, validSeconds ? (validSeconds * 1000) / 2 : PRESIGNED_MS);
  const hit = key ? cache.get(key) : undefined;
  if (hit && now - hit.producedAt < reuseMs && now >= hit.producedAt) return hit.der;
  const bits = Number(/^SHA(256|384|512)WithRSA$/.exec(issuer.record.revocationSignatureAlgorithm)?.[1] ?? 0);
  const der = await buildOcspResponse(
    {
      responderKeyHash: keyIdentifier(issuer.signer.spki),
      producedAt: now,
      validSeconds,
      responses,
      ...(nonce ? { nonce } : {}),
    },
    issuer.signer,
    signatureAlgorithm(issuer.signer, bits),
  );
  if (key) cache.set(key, { der, producedAt: now });
  return der;
}

async function respond(deps: Deps, part: Partition, requestDer: Buffer): Promise<OcspAnswer> {
  const repo = pkiRepository(deps, part);
  const config = await repo.cachedConfig('crl');
  if (config.ocspDisable) return refuse('unauthorized');
  let request;
  try {
    request = readOcspRequest(requestDer);
  } catch (e) {
    if (e instanceof InvalidInput) return refuse('malformedRequest');
    throw e;
  }
  const asked = await Promise.all(
    request.certs.map(async (id) => {
      const matched = await matchingIssuers(repo, id);
      const found = await statusOf(repo, id, new Set(matched.map((i) => i.id)));
      return { id, matched, ...found };
    }),
  );
  const first = asked[0]!;
  const responder = await responderFor(repo, first.matched, first.issuerId);
  if (responder === 'unauthorized') return refuse('unauthorized');
  let issuer: Issuer;
  try {
    issuer = await loadIssuer(deps, part, responder.id, 'ocsp-signing');
  } catch (e) {
    // Raced with a change of the issuer (deleted, its usage or key gone): it cannot answer.
    if (e instanceof InvalidInput || e instanceof NotFoundError) return refuse('unauthorized');
    throw e;
  }
  const responses = asked.map((a) => ({
    certId: a.id.raw,
    status: a.matched.some((i) => i.id === responder.id) ? a.status : ({ kind: 'unknown' } as const),
  }));
  const der = await sign(deps, issuer, responses, config.ocspExpiry, request.nonce);
  return { status: 'successful', der, certStatus: responses[0]!.status.kind };
}

/**
 * The OCSP answer to a DER request. Malformed input is a `malformedRequest` answer; a fault of
 * the service (the store or a KMS key unreachable) is logged and answered `internalError`.
 */
export async function answerOcsp(deps: Deps, part: Partition, requestDer: Buffer): Promise<OcspAnswer> {
  const started = performance.now();
  const mount = mountOf(part.name);
  let answer: OcspAnswer;
  try {
    answer = await respond(deps, part, requestDer);
  } catch (e) {
    logError('ocsp-fault', { partition: part.name }, e);
    answer = refuse('internalError');
  }
  metrics.pki.ocsp.inc({ mount, status: answer.certStatus ?? answer.status });
  metrics.pki.ocspSeconds.observe({ mount }, (performance.now() - started) / 1000);
  return answer;
}
