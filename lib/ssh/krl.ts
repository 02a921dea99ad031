/**
 * OpenSSH Key Revocation Lists (PROTOCOL.krl in OpenSSH's source): a header, then one
 * certificates section per CA key, holding its revoked serials (a sorted serial list) and key
 * ids. Pure: the records it lists are read elsewhere (cert-records.ts). Unsigned, as OpenSSH
 * ≥ 9.4 refuses KRL signature sections.
 */
import { str, u32, u64 } from './wire';

const MAGIC = Buffer.from('SSHKRL\n\0', 'latin1');
const FORMAT_VERSION = 1;
const SECTION_CERTIFICATES = 1;
const CERT_SERIAL_LIST = 0x20;
const CERT_KEY_ID = 0x23;

export interface KrlCaSection {
  /** The CA public key blob (SSH wire form); an empty buffer means any CA. */
  caKey: Buffer;
  serials: bigint[];
  keyIds?: string[];
}

export interface Krl {
  /** Increases each time the list changes. */
  version: bigint;
  /** Seconds since the epoch. */
  generatedAt: bigint;
  comment: string;
  sections: KrlCaSection[];
}

function subsection(type: number, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([type]), str(data)]);
}

/** One certificates section: serials sorted and once each, key ids once each; nothing when both are empty. */
function certificatesSection(s: KrlCaSection): Buffer | undefined {
  const serials = [...new Set(s.serials.map((n) => BigInt.asUintN(64, n)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const keyIds = [...new Set(s.keyIds ?? [])].sort();
  if (serials.length === 0 && keyIds.length === 0) return undefined;
  const parts = [str(s.caKey), str('')];
  if (serials.length > 0) parts.push(subsection(CERT_SERIAL_LIST, Buffer.concat(serials.map(u64))));
  if (keyIds.length > 0) parts.push(subsection(CERT_KEY_ID, Buffer.concat(keyIds.map((k) => str(k)))));
  return subsection(SECTION_CERTIFICATES, Buffer.concat(parts));
}

/** The binary KRL, as `ssh-keygen -k` writes one and sshd's `RevokedKeys` reads it. */
export function encodeKrl(krl: Krl): Buffer {
  const header = Buffer.concat([MAGIC, u32(FORMAT_VERSION), u64(krl.version), u64(krl.generatedAt), u64(0n), str(''), str(krl.comment)]);
  const sections = krl.sections.map(certificatesSection).filter((b): b is Buffer => b !== undefined);
  return Buffer.concat([header, ...sections]);
}
