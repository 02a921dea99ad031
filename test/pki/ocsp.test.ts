/**
 * lib/pki/ocsp.ts answerOcsp: the status of each certificate asked about, which issuer signs,
 * the refusals, and that a pre-signed answer is never served once the status it says changed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDeps } from '../../lib/composition';
import { readEnvironment } from '../../lib/config';
import type { Deps } from '../../lib/deps';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { mountPartition } from '../../lib/mount-partition';
import { generateRoot, type KeyChoice } from '../../lib/pki/ca';
import { nul, octets, oid, seq, uint } from '../../lib/pki/der/asn1';
import { readCert } from '../../lib/pki/der/cert-reader';
import { children, readTlv } from '../../lib/pki/der/reader';
import { pkiRepository } from '../../lib/pki/issuer';
import { answerOcsp } from '../../lib/pki/ocsp';
import { pemBlocks } from '../../lib/pki/pem';
import { revokeSerial } from '../../lib/pki/revoke';
import type { Partition } from '../../lib/store/store';
import { createTestStore } from '../helpers/store';

let deps: Deps;
let part: Partition;
const issuers: Record<string, { id: string; der: Buffer }> = {};

const INTERNAL: KeyChoice = { type: 'internal', keyType: 'ec', keyBits: 256, keyParamsGiven: true };

async function root(name: string): Promise<void> {
  const r = { commonName: `${name} root`, altNames: [], ipSans: [], uriSans: [], otherSans: [], excludeCnFromSans: true, subject: {} };
  const request = { ...r, ttl: 86_400, maxPathLength: -1, permittedDnsDomains: [], signatureBits: 0 };
  const out = await generateRoot(deps, part, request, INTERNAL, 10 * 365 * 86_400, { issuerName: name });
  const record = (await pkiRepository(deps, part).issuer(out.issuerId))!;
  issuers[name] = { id: out.issuerId, der: pemBlocks(record.certificate)[0]!.der };
}

/** A CertID for `serial` under the issuer `name`, hashed with `alg`. */
function certId(name: string, serial: Buffer, alg: 'sha1' | 'sha256' = 'sha1'): Buffer {
  const cert = readCert(issuers[name]!.der);
  const keyBits = children(readTlv(cert.spki).value)[1]!.value.subarray(1);
  const h = (b: Buffer) => createHash(alg).update(b).digest();
  const algOid = alg === 'sha1' ? '1.3.14.3.2.26' : '2.16.840.1.101.3.4.2.1';
  return seq(seq(oid(algOid), nul()), octets(h(cert.subjectDer)), octets(h(keyBits)), uint(serial));
}
const unknownIssuer = () =>
  seq(seq(oid('1.3.14.3.2.26'), nul()), octets(Buffer.alloc(20, 9)), octets(Buffer.alloc(20, 9)), uint(Buffer.from([1])));
const request = (...ids: Buffer[]) => seq(seq(seq(...ids.map((i) => seq(i)))));

/** The response status, and each SingleResponse's cert status tag (0 good, 1 revoked, 2 unknown) and reason. */
function parse(der: Buffer): { status: number; certs: { tag: number; reason?: number }[]; der: Buffer } {
  const [status, bytes] = children(readTlv(der).value);
  if (!bytes) return { status: status!.value[0]!, certs: [], der };
  const basic = readTlv(children(readTlv(bytes.value).value)[1]!.value);
  const data = children(basic.value)[0]!;
  const fields = children(data.value);
  const responses = children(fields[2]!.value);
  return {
    status: status!.value[0]!,
    der,
    certs: responses.map((r) => {
      const st = children(r.value)[1]!;
      const tag = st.tag & 0x1f;
      const reason = tag === 1 ? children(st.value)[1] : undefined;
      return { tag, ...(reason ? { reason: readTlv(reason.value).value[0]! } : {}) };
    }),
  };
}
const ask = async (...ids: Buffer[]) => parse((await answerOcsp(deps, part, request(...ids))).der);

let serialN = 0x100;
async function stored(name: string): Promise<Buffer> {
  const serial = Buffer.from([0x10, serialN++ & 0xff, 0x01]);
  await pkiRepository(deps, part).storeCertificate(serial, issuers[name]!.der, Date.now() + 3_600_000, issuers[name]!.id);
  return serial;
}

beforeAll(async () => {
  const { store, table } = await createTestStore();
  deps = createDeps({ env: { ...readEnvironment({}), tableName: table }, store, wrapper: new LocalKeyWrapper(randomBytes(32)) });
  part = mountPartition(deps, 'pki', 'pki');
  await root('a');
  await root('b');
});

describe('answerOcsp', () => {
  it('good for a stored certificate of the issuer asked about, unknown for a serial it never issued', async () => {
    const serial = await stored('a');
    expect((await ask(certId('a', serial))).certs).toEqual([{ tag: 0 }]);
    expect((await ask(certId('a', Buffer.from([0x7f, 1, 2])))).certs).toEqual([{ tag: 2 }]);
    expect((await ask(certId('a', serial, 'sha256'))).certs).toEqual([{ tag: 0 }]);
  });

  it("unknown for another issuer's certificate (hashes of b, serial of a's)", async () => {
    const serial = await stored('a');
    expect((await ask(certId('b', serial))).certs).toEqual([{ tag: 2 }]);
  });

  it('revoked with its reason; a pre-signed good answer is not served once revoked', async () => {
    const serial = await stored('a');
    const first = await ask(certId('a', serial));
    expect(first.certs).toEqual([{ tag: 0 }]);
    expect((await ask(certId('a', serial))).der.equals(first.der)).toBe(true); // reused while good
    await revokeSerial(deps, part, serial, 4);
    expect((await ask(certId('a', serial))).certs).toEqual([{ tag: 1, reason: 4 }]);
  });

  it('several certificates in one request: each answered; one of another issuer is unknown', async () => {
    const [x, y] = [await stored('a'), await stored('b')];
    expect((await ask(certId('a', x), certId('b', y))).certs).toEqual([{ tag: 0 }, { tag: 2 }]);
  });

  it('an unsupported hash algorithm or an unknown issuer: unknown, signed by the default issuer', async () => {
    const md5 = seq(seq(oid('1.2.840.113549.2.5'), nul()), octets(Buffer.alloc(16)), octets(Buffer.alloc(16)), uint(Buffer.from([1])));
    expect(await ask(md5)).toMatchObject({ status: 0, certs: [{ tag: 2 }] });
  });

  it('unauthorized when the matching issuer lacks ocsp-signing, and when no default issuer can sign an unknown', async () => {
    const repo = pkiRepository(deps, part);
    const serial = await stored('b');
    const b = (await repo.issuer(issuers.b!.id))!;
    await repo.putIssuer({ ...b, usage: b.usage.filter((u) => u !== 'ocsp-signing') });
    try {
      expect((await ask(certId('b', serial))).status).toBe(6);
    } finally {
      await repo.putIssuer(b);
    }
    expect((await ask(certId('b', serial))).status).toBe(0);
    const a = (await repo.issuer(issuers.a!.id))!; // the default issuer
    await repo.putIssuer({ ...a, usage: ['read-only', 'issuing-certificates'] });
    try {
      expect((await ask(unknownIssuer())).status).toBe(6);
    } finally {
      await repo.putIssuer(a);
    }
  });

  it('malformed input: malformedRequest, nothing thrown', async () => {
    for (const bad of [Buffer.alloc(0), Buffer.from('garbage'), request()])
      expect((await answerOcsp(deps, part, bad)).status).toBe('malformedRequest');
  });
});
