/** Field sets shared by several PKI paths. */
import { f } from '../../http/fields';

export const formatFields = {
  format: f.string({ default: 'pem', enum: ['pem', 'der', 'pem_bundle'], description: 'pem, der or pem_bundle' }),
  private_key_format: f.string({ default: 'der', enum: ['der', 'pkcs8', ''], description: 'der or pkcs8' }),
};

export const nameFields = {
  common_name: f.string({ default: '', compareAs: 'lower-case', description: 'the requested common name' }),
  alt_names: f.list({ default: [], compareAs: 'lower-case', description: 'DNS names and email addresses' }),
  ip_sans: f.list({ default: [], compareAs: 'address', description: 'IP subject alternative names' }),
  uri_sans: f.list({ default: [], description: 'URI subject alternative names' }),
  other_sans: f.list({ default: [], description: '<oid>;UTF8:<value> entries' }),
  exclude_cn_from_sans: f.bool({ default: false }),
  ttl: f.duration({ description: 'requested validity' }),
  not_after: f.string({ default: '', description: 'absolute expiry, YYYY-MM-ddTHH:MM:SSZ' }),
  serial_number: f.string({ default: '', description: 'the subject serialNumber attribute' }),
};

export const subjectFields = {
  ou: f.list({ default: [] }),
  organization: f.list({ default: [] }),
  country: f.list({ default: [] }),
  locality: f.list({ default: [] }),
  province: f.list({ default: [] }),
  street_address: f.list({ default: [] }),
  postal_code: f.list({ default: [] }),
};

export const caFields = {
  ...nameFields,
  ...subjectFields,
  ...formatFields,
  key_type: f.string({ enum: ['rsa', 'ec', 'ed25519', 'any'] }),
  key_bits: f.int({ min: 0 }),
  signature_bits: f.int({ default: 0 }),
  max_path_length: f.int({ default: -1, min: -1 }),
  permitted_dns_domains: f.list({ default: [], compareAs: 'lower-case' }),
  managed_key_name: f.string(),
  managed_key_id: f.string(),
};
