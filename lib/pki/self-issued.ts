/**
 * root/sign-self-issued: re-sign a self-issued CA certificate as it is, changing only the
 * signature algorithm, the issuer DN and the authority key id (e.g. for root rollover).
 */
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import { keyIdentifier, signatureAlgorithm } from '../keys/signer';
import type { Partition } from '../store/store';
import { explicit, seq } from './der/asn1';
import { signed } from './der/certificate';
import { authorityKeyId } from './der/extensions';
import { children, readTlv, signedParts } from './der/reader';
import { loadIssuer } from './issuer';
import { parseCertificate } from './parse';
import { onePem } from './pem';

function replaceAki(extensionsTagged: Buffer, aki: Buffer): Buffer {
  const list = children(readTlv(readTlv(extensionsTagged).value).value);
  const kept = list.filter((e) => !children(e.value)[0]?.raw.equals(Buffer.from('0603551d23', 'hex'))).map((e) => e.raw);
  return explicit(3, seq(...kept, aki));
}

export async function signSelfIssued(
  deps: Deps,
  part: Partition,
  pem: string,
  requireMatchingAlgorithms: boolean,
  issuerRef = 'default',
): Promise<{ certificate: Buffer; issuingCa: string }> {
  const der = onePem(pem, ['CERTIFICATE'], 'the certificate');
  const cert = parseCertificate(der);
  if (!cert.subjectDer.equals(cert.issuerDer)) throw new InvalidInput('the certificate is not self-issued');
  if (!cert.isCa) throw new InvalidInput('the certificate is not a CA certificate');
  const issuer = await loadIssuer(deps, part, issuerRef);
  if (requireMatchingAlgorithms && issuer.signer.keyType !== cert.keyType)
    throw new InvalidInput('the CA key type does not match the certificate key type');
  const alg = signatureAlgorithm(issuer.signer);
  const parts = children(readTlv(signedParts(der).tbs).value);
  const aki = authorityKeyId(issuer.cert.subjectKeyId ?? keyIdentifier(issuer.signer.spki));
  const rebuilt = parts.map((p, i) => {
    if (i === 2) return alg.der;
    if (i === 3) return issuer.cert.subjectDer;
    if (p.tag === 0xa3) return replaceAki(p.raw, aki);
    return p.raw;
  });
  if (!parts.some((p) => p.tag === 0xa3)) rebuilt.push(explicit(3, seq(aki)));
  return { certificate: await signed(seq(...rebuilt), issuer.signer, alg), issuingCa: issuer.record.certificate };
}
