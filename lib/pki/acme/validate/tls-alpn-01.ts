/**
 * tls-alpn-01 (RFC 8737; RFC 8738 for ip identifiers): a TLS handshake with an address of the
 * name (found through the validation's resolver) on the configured TLS port, SNI the name (for
 * an ip identifier its reverse-DNS name), offering only ALPN `acme-tls/1`, which must be
 * negotiated. The certificate presented (its chain is not verified) must carry exactly one
 * subjectAltName, the identifier, and a critical id-pe-acmeIdentifier extension whose value is
 * an OCTET STRING of SHA-256(key authorization).
 */
import { createHash } from 'node:crypto';
import { connect, type TLSSocket } from 'node:tls';
import { oid } from '../../der/asn1';
import { children, expectTlv, readTlv } from '../../der/reader';
import { ipBytes, reverseName, urlHost } from './address';
import { addressesOf } from './resolve';
import { fail, OK, PROBLEM, type AcmeIdentifier, type ValidationContext, type ValidationOutcome } from './types';

export const ACME_TLS_ALPN = 'acme-tls/1';
export const ACME_IDENTIFIER_OID = '1.3.6.1.5.5.7.1.31';
const ACME_IDENTIFIER = oid(ACME_IDENTIFIER_OID).toString('hex');
const SUBJECT_ALT_NAME = oid('2.5.29.17').toString('hex');

type Handshake = { ok: true; der: Buffer } | { ok: false; outcome: ValidationOutcome; connection: boolean };

export async function validateTlsAlpn01(id: AcmeIdentifier, keyAuthorization: string, ctx: ValidationContext): Promise<ValidationOutcome> {
  const sni = id.type === 'ip' ? reverseName(id.value) : id.value;
  const found = await addressesOf(id.value, 'tls-alpn-01', ctx);
  if (!found.ok) return found.outcome;
  let shake: Handshake | undefined;
  for (const address of found.value) {
    shake = await handshake(address, ctx.settings.tlsPort, sni, ctx);
    if (shake.ok || !shake.connection) break;
  }
  if (!shake!.ok) return shake!.outcome;
  return checkCertificate(shake!.der, id, createHash('sha256').update(keyAuthorization).digest());
}

/** One TLS handshake offering only `acme-tls/1`: the certificate presented, or why there is none. */
function handshake(address: string, port: number, sni: string, ctx: ValidationContext): Promise<Handshake> {
  const target = `${urlHost(address)}:${port}`;
  if (ctx.signal.aborted) return Promise.resolve(timedOut(target));
  return new Promise((resolve) => {
    const socket = connectAlpn(address, port, sni);
    const onAbort = () => socket.destroy(Object.assign(new Error('timed out'), { code: 'ABORT_ERR' }));
    let settled = false;
    const done = (h: Handshake) => {
      if (settled) return;
      settled = true;
      ctx.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(h);
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () => done(negotiated(socket, target)));
    socket.on('error', (e: NodeJS.ErrnoException) => done(failedHandshake(e.code ?? '', target, ctx.signal.aborted)));
  });
}

/** A TLS connection to the address, SNI `sni`, offering only ALPN `acme-tls/1`; the chain is not verified. */
function connectAlpn(address: string, port: number, sni: string): TLSSocket {
  return connect({
    host: address,
    port,
    servername: sni,
    ALPNProtocols: [ACME_TLS_ALPN],
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2',
  });
}

/** After the handshake: `acme-tls/1` must have been negotiated and a certificate presented. */
function negotiated(socket: TLSSocket, target: string): Handshake {
  if (socket.alpnProtocol !== ACME_TLS_ALPN) return tlsFailure(`${target} did not negotiate ALPN ${ACME_TLS_ALPN}`);
  const cert = socket.getPeerX509Certificate();
  if (!cert) return tlsFailure(`${target} presented no certificate`);
  return { ok: true, der: cert.raw };
}

/** A socket error as an outcome: a timeout, a connection failure (the next address is tried) or a TLS failure. */
function failedHandshake(code: string, target: string, aborted: boolean): Handshake {
  if (aborted || code === 'ABORT_ERR') return timedOut(target);
  if (code === 'ECONNREFUSED')
    return { ok: false, connection: true, outcome: fail(PROBLEM.connection, `tls-alpn-01: connection refused on ${target}`) };
  if (['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ETIMEDOUT', 'ECONNRESET'].includes(code)) {
    return {
      ok: false,
      connection: true,
      outcome: fail(PROBLEM.connection, `tls-alpn-01: the connection to ${target} failed (${code})`),
    };
  }
  return tlsFailure(`the TLS handshake with ${target} failed (${code || 'handshake error'})`);
}

const tlsFailure = (detail: string): Handshake => ({ ok: false, connection: false, outcome: fail(PROBLEM.tls, `tls-alpn-01: ${detail}`) });
const timedOut = (target: string): Handshake => ({
  ok: false,
  connection: false,
  outcome: fail(PROBLEM.connection, `tls-alpn-01: ${target} did not complete a handshake in time`),
});

interface Extension {
  critical: boolean;
  value: Buffer;
}

/** The certificate's extensions by OID (hex of the OID's DER). Throws on malformed DER. */
function extensionsOf(der: Buffer): Map<string, Extension> {
  const out = new Map<string, Extension>();
  const [tbs] = children(expectTlv(readTlv(der), 0x30, 'certificate').value);
  const fields = children(expectTlv(tbs, 0x30, 'TBSCertificate').value);
  const wrapped = fields.find((f) => f.tag === 0xa3);
  if (!wrapped) return out;
  for (const ext of children(expectTlv(readTlv(wrapped.value), 0x30, 'extensions').value)) {
    const parts = children(expectTlv(ext, 0x30, 'extension').value);
    const id = expectTlv(parts[0], 0x06, 'extension').raw.toString('hex');
    const critical = parts.length === 3 && parts[1]?.tag === 0x01 && (parts[1].value[0] ?? 0) !== 0;
    out.set(id, { critical, value: expectTlv(parts[parts.length - 1], 0x04, 'extension value').value });
  }
  return out;
}

/** Whether a GeneralName (its TLV) names the identifier: dNSName for dns, iPAddress for ip. */
function namesIdentifier(g: { tag: number; value: Buffer }, id: AcmeIdentifier): boolean {
  if (id.type === 'dns') return g.tag === 0x82 && g.value.toString('latin1').toLowerCase() === id.value.toLowerCase();
  const want = ipBytes(id.value);
  return g.tag === 0x87 && want !== undefined && g.value.equals(want);
}

function checkCertificate(der: Buffer, id: AcmeIdentifier, digest: Buffer): ValidationOutcome {
  let exts: Map<string, Extension>;
  let sans: { tag: number; value: Buffer }[] = [];
  let proof: Buffer | undefined;
  try {
    exts = extensionsOf(der);
    const san = exts.get(SUBJECT_ALT_NAME);
    if (san) sans = children(expectTlv(readTlv(san.value), 0x30, 'subjectAltName').value);
    const acme = exts.get(ACME_IDENTIFIER);
    if (acme) {
      const inner = expectTlv(readTlv(acme.value), 0x04, 'acmeIdentifier');
      if (inner.raw.length !== acme.value.length) throw new Error('trailing data');
      proof = inner.value;
    }
  } catch {
    return fail(PROBLEM.tls, 'tls-alpn-01: the certificate presented is malformed');
  }
  const acme = exts.get(ACME_IDENTIFIER);
  if (sans.length !== 1) {
    return fail(
      PROBLEM.unauthorized,
      `tls-alpn-01: the certificate presented has ${sans.length} subjectAltNames (exactly one, ${id.value}, is required)`,
    );
  }
  if (!namesIdentifier(sans[0]!, id)) return fail(PROBLEM.unauthorized, `tls-alpn-01: the certificate presented does not name ${id.value}`);
  if (!acme) return fail(PROBLEM.unauthorized, 'tls-alpn-01: the certificate presented has no acmeIdentifier extension');
  if (!acme.critical) return fail(PROBLEM.unauthorized, 'tls-alpn-01: the acmeIdentifier extension is not critical');
  if (!proof || !proof.equals(digest))
    return fail(PROBLEM.incorrectResponse, 'tls-alpn-01: the acmeIdentifier extension does not hold the key authorization digest');
  return OK;
}
