/** Unauthenticated reads (ca, ca_chain, cert/<serial>, crl, crl/delta, issuer/<ref>/crl/delta) and the certificate lists. */
import { NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type ReqContext } from '../../http/path';
import { currentCrl, currentDeltaCrl } from '../crl';
import { defaultIssuerRecord, pkiRepository } from '../issuer';
import { parseCertificate } from '../parse';
import { onePem, pemBlocks, toPem } from '../pem';
import { parseSerial } from '../serial';
import { REVOKED_INDEX, type RevokedRecord } from '../storage';
import { revocationTime } from './wire';

/** The default issuer's certificate, PEM. */
async function caPem(req: ReqContext): Promise<string> {
  const ca = await defaultIssuerRecord(req.deps, req.part);
  if (!ca?.certificate) throw new NotFound();
  return ca.certificate;
}

/** The default issuer and the chain above it; `withRoot` false drops self-signed certificates. */
async function chain(req: ReqContext, withRoot: boolean): Promise<string[]> {
  const ca = await defaultIssuerRecord(req.deps, req.part);
  if (!ca?.certificate) return [];
  const all = [ca.certificate, ...ca.caChain];
  if (withRoot) return all;
  return all.filter((p) => {
    const c = parseCertificate(onePem(p, ['CERTIFICATE'], 'CA certificate'));
    return !c.subjectDer.equals(c.issuerDer);
  });
}

const PEM = 'application/pem-certificate-chain';
/** A chain as one PEM string, blocks joined by one newline, as the reference's cert/ca_chain. */
const chainText = (pems: string[]) => pems.map((p) => p.trim()).join('\n');
const pemDer = (pem: string) => pemBlocks(pem)[0]!.der;

async function certPem(req: ReqContext, serial: string): Promise<{ pem: string; revokedAt?: number }> {
  if (serial === 'ca') return { pem: await caPem(req) };
  if (serial === 'ca_chain') return { pem: chainText(await chain(req, true)) };
  if (serial === 'crl') return { pem: toPem('X509 CRL', await currentCrl(req.deps, req.part)) };
  if (serial === 'delta-crl') return { pem: await deltaPem(req) };
  const rec = await pkiRepository(req.deps, req.part).certificate(parseSerial(serial));
  if (!rec) throw new NotFound();
  return { pem: toPem('CERTIFICATE', Buffer.from(rec.der, 'base64')), ...(rec.revokedAt ? { revokedAt: rec.revokedAt } : {}) };
}

/** A delta CRL, PEM; empty while delta CRLs are off (as OpenBao answers when it has none). */
async function deltaPem(req: ReqContext, issuerRef = 'default'): Promise<string> {
  const der = await currentDeltaCrl(req.deps, req.part, issuerRef);
  return der ? toPem('X509 CRL', der) : '';
}

/** A delta CRL, DER or PEM; no delta (deltas off): 204 and no body, as OpenBao. */
async function deltaRaw(req: ReqContext, issuerRef: string, pem: boolean) {
  const der = await currentDeltaCrl(req.deps, req.part, issuerRef);
  if (!der) return {};
  return { raw: { body: pem ? toPem('X509 CRL', der) : der } };
}

const issuerRef = { issuer_ref: f.pathParam({ description: 'the issuer: default, its id or its name' }) };

async function listKeys(req: ReqContext, prefix: string) {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await req.part.listKeys(prefix, { limit: 1000, ...(cursor ? { cursor } : {}) });
    keys.push(...page.items.map((k) => (k.slice(prefix.length).match(/../g) ?? []).join(':')));
    cursor = page.cursor;
  } while (cursor && keys.length < 100_000);
  if (!keys.length) throw new NotFound();
  return { data: { keys } };
}

export const readPaths = [
  definePath({
    pattern: 'ca',
    fields: {},
    help: 'The CA certificate, DER.',
    unauthenticated: ['read'],
    operations: { read: async (req) => ({ raw: { body: pemDer(await caPem(req)) } }) },
    answers: ['application/pkix-cert'],
  }),
  definePath({
    pattern: 'ca/pem',
    fields: {},
    help: 'The CA certificate, PEM.',
    unauthenticated: ['read'],
    operations: { read: async (req) => ({ raw: { body: await caPem(req) } }) },
    answers: [PEM],
  }),
  definePath({
    pattern: 'ca_chain',
    fields: {},
    help: 'The CA chain without the root, PEM.',
    unauthenticated: ['read'],
    operations: { read: async (req) => ({ raw: { body: (await chain(req, false)).join('\n') } }) },
    answers: [PEM],
  }),
  definePath({
    pattern: 'crl',
    fields: {},
    help: 'The CRL, DER.',
    unauthenticated: ['read'],
    operations: { read: async (req) => ({ raw: { body: await currentCrl(req.deps, req.part) } }) },
    answers: ['application/pkix-crl'],
  }),
  definePath({
    pattern: 'crl/pem',
    fields: {},
    help: 'The CRL, PEM.',
    unauthenticated: ['read'],
    operations: {
      read: async (req) => ({
        raw: { body: toPem('X509 CRL', await currentCrl(req.deps, req.part)) },
      }),
    },
    answers: ['application/x-pem-file'],
  }),
  definePath({
    pattern: 'crl/delta',
    fields: {},
    help: 'The delta CRL of the default issuer, DER (204 while delta CRLs are off).',
    unauthenticated: ['read'],
    operations: { read: (req) => deltaRaw(req, 'default', false) },
    answers: ['application/pkix-crl'],
  }),
  definePath({
    pattern: 'crl/delta/pem',
    fields: {},
    help: 'The delta CRL of the default issuer, PEM (204 while delta CRLs are off).',
    unauthenticated: ['read'],
    operations: { read: (req) => deltaRaw(req, 'default', true) },
    answers: ['application/x-pem-file'],
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/crl/delta',
    fields: issuerRef,
    unauthenticated: ['read'],
    help: "An issuer's delta CRL (JSON, the CRL as PEM; empty while delta CRLs are off).",
    operations: { read: async (req) => ({ data: { crl: await deltaPem(req, req.data.issuer_ref) } }) },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/crl/delta/der',
    fields: issuerRef,
    unauthenticated: ['read'],
    answers: ['application/pkix-crl'],
    help: "An issuer's delta CRL, DER (204 while delta CRLs are off).",
    operations: { read: (req) => deltaRaw(req, req.data.issuer_ref, false) },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/crl/delta/pem',
    fields: issuerRef,
    unauthenticated: ['read'],
    answers: ['application/x-pem-file'],
    help: "An issuer's delta CRL, PEM (204 while delta CRLs are off).",
    operations: { read: (req) => deltaRaw(req, req.data.issuer_ref, true) },
  }),
  definePath({
    pattern: 'cert/:serial/raw/pem',
    fields: { serial: f.pathParam() },
    help: 'A certificate, PEM.',
    unauthenticated: ['read'],
    operations: {
      read: async (req) => {
        const { pem } = await certPem(req, req.data.serial);
        // No delta CRL (deltas off): 204 and no body, as the DER form and crl/delta/pem answer.
        return pem ? { raw: { body: pem } } : {};
      },
    },
    answers: [PEM],
  }),
  definePath({
    pattern: 'cert/:serial/raw',
    fields: { serial: f.pathParam() },
    help: 'A certificate, DER.',
    unauthenticated: ['read'],
    operations: {
      read: async (req) => {
        const { pem } = await certPem(req, req.data.serial);
        const crl = req.data.serial === 'crl' || req.data.serial === 'delta-crl';
        if (!pem) return {};
        return { raw: { body: pemDer(pem), contentType: crl ? 'application/pkix-crl' : 'application/pkix-cert' } };
      },
    },
    answers: ['application/pkix-cert', 'application/pkix-crl'],
  }),
  definePath({
    pattern: 'cert/:serial',
    fields: { serial: f.pathParam() },
    help: 'A certificate (or the CA, ca_chain, crl), in an envelope.',
    unauthenticated: ['read'],
    operations: {
      read: async (req) => {
        const c = await certPem(req, req.data.serial);
        const data: Record<string, unknown> = { certificate: c.pem, ...revocationTime(c.revokedAt) };
        if (req.data.serial === 'ca_chain') data.ca_chain = c.pem;
        return { data };
      },
    },
  }),
  definePath({ pattern: 'certs', fields: {}, help: 'List certificate serials.', operations: { list: (req) => listKeys(req, 'cert/') } }),
  definePath({
    pattern: 'certs/revoked',
    fields: {},
    help: 'List revoked serials.',
    operations: {
      list: async (req) => {
        const page = await req.part.queryIndex<RevokedRecord>(REVOKED_INDEX, { limit: 1000 });
        const keys = page.items.map((i) => (i.value.serial.match(/../g) ?? []).join(':'));
        if (!keys.length) throw new NotFound();
        return { data: { keys } };
      },
    },
  }),
];
