/**
 * The names a CSR asks for, as request parameters (PathSpec.derivedParams): a path that signs a
 * CSR may put its subject's common name and its SANs in the certificate, so parameter
 * constraints on `common_name`, `alt_names`, `ip_sans` and `uri_sans` hold on them as on the
 * fields sent, compared as those fields compare. A CSR that does not parse yields nothing here;
 * the handler refuses it after.
 */
import type { DerivedParams } from '../../http/path';
import { readCsr } from '../der/csr-reader';
import { csrFromPem } from '../leaf';
import { nameFields } from './fields';

export const csrParams: DerivedParams = {
  fields: {
    common_name: nameFields.common_name,
    alt_names: nameFields.alt_names,
    ip_sans: nameFields.ip_sans,
    uri_sans: nameFields.uri_sans,
  },
  values(data) {
    if (typeof data.csr !== 'string' || data.csr === '') return {};
    try {
      const csr = readCsr(csrFromPem(data.csr));
      return {
        common_name: csr.subject.commonName ?? '',
        alt_names: [...csr.sans.dns, ...csr.sans.email],
        ip_sans: csr.sans.ip,
        uri_sans: csr.sans.uri,
      };
    } catch {
      return {};
    }
  },
};
