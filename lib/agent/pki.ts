/**
 * A PKI entry: `<mount>/issue/<role>` with common_name, alt_names, ip_sans and ttl; the
 * certificate to cert_file (0644), its private key to key_file (0600), the issuing CA chain to
 * chain_file (0644).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { Json, LatchkeyClient } from '../client/client';
import type { PkiEntry } from './config';
import { CERT_MODE, KEY_MODE, type FileWrite } from './files';
import { startOf, type Fetched, type Job, type Validity } from './job';

/** "1a:2b:…" as the service prints serials. */
const colonHex = (hex: string) => (hex.toLowerCase().match(/../g) ?? []).join(':');

function validityOf(pem: string, fileTime: number): Validity {
  const c = new X509Certificate(pem);
  const end = Date.parse(c.validTo);
  return { start: startOf(Date.parse(c.validFrom), fileTime, end), end, serial: colonHex(c.serialNumber.padStart(2, '0')) };
}

function current(e: PkiEntry): Validity | undefined {
  try {
    const pem = readFileSync(e.cert_file, 'utf8');
    statSync(e.key_file);
    if (e.chain_file) statSync(e.chain_file);
    const c = new X509Certificate(pem);
    // A changed common name in the configuration asks for a new certificate.
    if (!c.subject.split('\n').includes(`CN=${e.common_name}`)) return undefined;
    return validityOf(pem, statSync(e.cert_file).mtimeMs);
  } catch {
    return undefined;
  }
}

async function fetch(e: PkiEntry, client: LatchkeyClient): Promise<Fetched> {
  const body: Json = { common_name: e.common_name };
  if (e.alt_names) body.alt_names = e.alt_names;
  if (e.ip_sans) body.ip_sans = e.ip_sans;
  if (e.ttl !== undefined) body.ttl = e.ttl;
  const path = `${e.mount}/issue/${e.role}`;
  const d = (await client.write(path, body))?.data as Json | undefined;
  if (typeof d?.certificate !== 'string' || typeof d.private_key !== 'string') throw new Error(`${path} answered no certificate and key`);
  const chain: string[] =
    Array.isArray(d.ca_chain) && d.ca_chain.length ? d.ca_chain : typeof d.issuing_ca === 'string' ? [d.issuing_ca] : [];
  const writes: FileWrite[] = [
    { path: e.key_file, content: `${d.private_key.trim()}\n`, mode: KEY_MODE },
    { path: e.cert_file, content: `${d.certificate.trim()}\n`, mode: CERT_MODE },
  ];
  if (e.chain_file) writes.push({ path: e.chain_file, content: chain.map((c) => `${String(c).trim()}\n`).join(''), mode: CERT_MODE });
  const v = validityOf(d.certificate, Date.now());
  return { writes, validity: { ...v, serial: typeof d.serial_number === 'string' ? d.serial_number : v.serial } };
}

export function pkiJob(e: PkiEntry): Job {
  return {
    label: { kind: 'pki', mount: e.mount, role: e.role, common_name: e.common_name, cert_file: e.cert_file },
    ...(e.command ? { command: e.command } : {}),
    current: () => current(e),
    fetch: (client) => fetch(e, client),
  };
}
