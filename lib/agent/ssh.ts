/**
 * An SSH entry: `<mount>/sign/<role>` with the public key file's contents, valid_principals,
 * cert_type and ttl; the signed certificate to cert_file (0644). The private key stays where it
 * is: the agent never reads it.
 */
import { readFileSync, statSync } from 'node:fs';
import sshpk from 'sshpk';
import type { Json, LatchkeyClient } from '../client/client';
import type { SshEntry } from './config';
import { CERT_MODE } from './files';
import { startOf, type Fetched, type Job, type Validity } from './job';

function validityOf(text: string, fileTime: number): Validity {
  const c = sshpk.parseCertificate(text.trim(), 'openssh');
  const end = c.validUntil.getTime();
  return { start: startOf(c.validFrom.getTime(), fileTime, end), end, serial: BigInt(`0x${c.serial.toString('hex') || '0'}`).toString() };
}

function current(e: SshEntry): Validity | undefined {
  try {
    const text = readFileSync(e.cert_file, 'utf8');
    const c = sshpk.parseCertificate(text.trim(), 'openssh');
    // A certificate of another key (the key was replaced) is renewed at once.
    const key = sshpk.parseKey(readFileSync(e.public_key_file, 'utf8'), 'ssh');
    if (!c.subjectKey.fingerprint('sha256').matches(key)) return undefined;
    return validityOf(text, statSync(e.cert_file).mtimeMs);
  } catch {
    return undefined;
  }
}

async function fetch(e: SshEntry, client: LatchkeyClient): Promise<Fetched> {
  const body: Json = { public_key: readFileSync(e.public_key_file, 'utf8').trim() };
  if (e.valid_principals) body.valid_principals = e.valid_principals;
  if (e.cert_type) body.cert_type = e.cert_type;
  if (e.ttl !== undefined) body.ttl = e.ttl;
  const path = `${e.mount}/sign/${e.role}`;
  const d = (await client.write(path, body))?.data as Json | undefined;
  if (typeof d?.signed_key !== 'string') throw new Error(`${path} answered no signed key`);
  const validity = validityOf(d.signed_key, Date.now());
  return {
    writes: [{ path: e.cert_file, content: `${d.signed_key.trim()}\n`, mode: CERT_MODE }],
    validity: { ...validity, serial: typeof d.serial_number === 'string' ? d.serial_number : validity.serial },
  };
}

export function sshJob(e: SshEntry): Job {
  return {
    label: { kind: 'ssh', mount: e.mount, role: e.role, cert_file: e.cert_file },
    ...(e.command ? { command: e.command } : {}),
    current: () => current(e),
    fetch: (client) => fetch(e, client),
  };
}
