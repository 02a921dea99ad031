/**
 * A root and one leaf, in memory, with no storage: for local HTTPS in tests (the fakes, through
 * pki-cert.ts). Built with the engine's own certificate builder and extension rules.
 */
import { keyIdentifier, signatureAlgorithm } from '../../lib/keys/signer';
import { generateKey, LocalSigner } from '../../lib/keys/signer-local';
import { DEFAULT_URLS } from '../../lib/pki/config';
import { buildCertificate } from '../../lib/pki/der/certificate';
import { encodeName } from '../../lib/pki/der/name';
import { toPem } from '../../lib/pki/pem';
import { newEcKey } from '../../lib/pki/public-key';
import { privateKeyText } from '../../lib/pki/private-key';
import { altNamesOf, gatherNames } from '../../lib/pki/request-names';
import { randomSerial } from '../../lib/pki/serial';
import { caExtensions, leafExtensions } from '../../lib/pki/template';

export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export async function quickTlsChain(
  names: string[] = ['localhost'],
  ips: string[] = ['127.0.0.1', '::1'],
  ttlSeconds = 86_400,
): Promise<TlsMaterial> {
  const now = Date.now();
  const caKey = new LocalSigner(await generateKey('ec', 256));
  const caName = encodeName({ commonName: 'Latchkey local CA' });
  const caId = keyIdentifier(caKey.spki);
  const noNames = altNamesOf(
    gatherNames({ commonName: '', altNames: [], ipSans: [], uriSans: [], otherSans: [], excludeCnFromSans: true }),
  );
  const alg = signatureAlgorithm(caKey);
  const ca = await buildCertificate(
    {
      serial: randomSerial(),
      issuer: caName,
      subject: caName,
      notBefore: now - 30_000,
      notAfter: now + 2 * ttlSeconds * 1000,
      spki: caKey.spki,
      extensions: caExtensions({
        spki: caKey.spki,
        issuerKeyId: caId,
        altNames: noNames,
        maxPathLength: 0,
        permittedDnsDomains: [],
        urls: DEFAULT_URLS,
      }),
    },
    caKey,
    alg,
  );
  const leafKey = newEcKey(256);
  const spki = leafKey.spki;
  const [cn = 'localhost', ...rest] = names;
  const leafNames = gatherNames({ commonName: cn, altNames: rest, ipSans: ips, uriSans: [], otherSans: [], excludeCnFromSans: false });
  const leaf = await buildCertificate(
    {
      serial: randomSerial(),
      issuer: caName,
      subject: encodeName({ commonName: cn }),
      notBefore: now - 30_000,
      notAfter: now + ttlSeconds * 1000,
      spki,
      extensions: leafExtensions({
        spki,
        keyType: 'ec',
        issuerKeyId: caId,
        altNames: altNamesOf(leafNames),
        emptySubject: false,
        keyUsage: ['DigitalSignature', 'KeyAgreement'],
        extKeyUsage: ['ServerAuth', 'ClientAuth'],
        extKeyUsageOids: [],
        policyIdentifiers: [],
        basicConstraintsValidForNonCa: false,
        urls: DEFAULT_URLS,
      }),
    },
    caKey,
    alg,
  );
  return { caPem: toPem('CERTIFICATE', ca), certPem: toPem('CERTIFICATE', leaf), keyPem: privateKeyText(leafKey, 'pkcs8', 'pem') };
}
