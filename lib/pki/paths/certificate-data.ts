/** The certificate response `data` in the requested format (pem, der, pem_bundle). */
import type { CertOutput } from '../cert-output';
import { onePem, toPem } from '../pem';
import { encodePrivateKey, privateKeyText } from '../private-key';
import { colonSerial } from '../serial';

const asFormat = (pem: string, format: string) => (format === 'der' ? onePem(pem, ['CERTIFICATE'], 'certificate').toString('base64') : pem);

export function certificateData(o: CertOutput, format: string): Record<string, unknown> {
  const pem = toPem('CERTIFICATE', o.certificate);
  const data: Record<string, unknown> = {
    certificate: format === 'der' ? o.certificate.toString('base64') : pem,
    issuing_ca: asFormat(o.issuingCa, format),
    serial_number: colonSerial(o.serial),
    expiration: Math.floor(o.notAfter / 1000),
  };
  if (o.caChain) data.ca_chain = o.caChain.map((c) => asFormat(c, format));
  if (o.privateKey) {
    data.private_key = privateKeyText(o.privateKey, o.privateKeyFormat ?? 'der', format === 'der' ? 'der' : 'pem');
    data.private_key_type = o.privateKey.type;
  }
  if (format === 'pem_bundle') {
    const parts = [pem];
    if (o.privateKey) {
      const k = encodePrivateKey(o.privateKey, 'der');
      parts.push(toPem(k.label, k.der));
    }
    if (!o.selfSigned) parts.push(...(o.caChain ?? [o.issuingCa]));
    data.certificate = parts.join('\n');
  }
  return data;
}
