/** The KRL encoder (lib/ssh/krl.ts), read back by ssh-keygen -Q and compared with what ssh-keygen -k writes. */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeKrl, type Krl } from '../../lib/ssh/krl';
import { keygen, tempDir } from '../helpers/ssh-keys';

const dir = tempDir('latchkey-krl-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ca = keygen(dir, 'ed25519');
const otherCa = keygen(dir, 'ecdsa');
const caBlob = (pubText: string) => Buffer.from(pubText.trim().split(/\s+/)[1]!, 'base64');
const BIG = 9_223_372_036_854_775_815n; // above 2^63

let n = 0;
/** A user certificate signed by ssh-keygen; answers its file. */
function cert(signer: { priv: string }, serial: bigint, keyId: string): string {
  const user = keygen(dir, 'ed25519');
  execFileSync('ssh-keygen', ['-q', '-s', signer.priv, '-I', keyId, '-n', 'alice', '-z', serial.toString(), user.pub], { stdio: 'pipe' });
  return user.pub.replace(/\.pub$/, '-cert.pub');
}

function writeKrl(bytes: Buffer): string {
  const file = join(dir, `krl${n++}`);
  writeFileSync(file, bytes);
  return file;
}

/** ssh-keygen -Q: 'REVOKED' or 'ok'. */
function query(krl: string, certFile: string): string {
  const r = spawnSync('ssh-keygen', ['-Q', '-f', krl, certFile], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`ssh-keygen -Q: ${r.stderr}`);
  if (/REVOKED/.test(r.stdout) !== (r.status === 1)) throw new Error(`ssh-keygen -Q disagrees with itself: ${r.stdout}`);
  return r.status === 1 ? 'REVOKED' : 'ok';
}

const krl = (sections: Krl['sections'], comment = ''): Krl => ({ version: 3n, generatedAt: 1_700_000_000n, comment, sections });

describe('encodeKrl', () => {
  const revoked5 = cert(ca, 5n, 'a');
  const revokedBig = cert(ca, BIG, 'b');
  const kept = cert(ca, 6n, 'c');
  const byId = cert(ca, 77n, 'alice-id');
  const otherCa5 = cert(otherCa, 5n, 'a');

  it('revokes the serials it lists for its CA, and nothing else', () => {
    const file = writeKrl(encodeKrl(krl([{ caKey: caBlob(ca.pubText), serials: [BIG, 5n, 5n] }], 'latchkey ssh')));
    expect(query(file, revoked5)).toBe('REVOKED');
    expect(query(file, revokedBig)).toBe('REVOKED');
    expect(query(file, kept)).toBe('ok');
    expect(query(file, otherCa5)).toBe('ok');
  });

  it('revokes by key id, and keeps one section per CA apart', () => {
    const file = writeKrl(
      encodeKrl(
        krl([
          { caKey: caBlob(ca.pubText), serials: [], keyIds: ['alice-id'] },
          { caKey: caBlob(otherCa.pubText), serials: [5n] },
        ]),
      ),
    );
    expect(query(file, byId)).toBe('REVOKED');
    expect(query(file, revoked5)).toBe('ok');
    expect(query(file, otherCa5)).toBe('REVOKED');
  });

  it('an empty list is a valid KRL that revokes nothing', () => {
    const file = writeKrl(encodeKrl(krl([{ caKey: caBlob(ca.pubText), serials: [] }])));
    expect(query(file, revoked5)).toBe('ok');
  });

  it('writes what ssh-keygen -k writes for the same revocations (header times aside) and means the same', () => {
    const spec = join(dir, 'spec');
    writeFileSync(spec, `serial: 5\nserial: ${BIG}\nid: alice-id\n`);
    const ref = join(dir, 'ref.krl');
    execFileSync('ssh-keygen', ['-q', '-k', '-f', ref, '-s', ca.pub, spec], { stdio: 'pipe' });
    const refBytes = readFileSync(ref);
    const ours = encodeKrl({ ...krl([{ caKey: caBlob(ca.pubText), serials: [5n, BIG], keyIds: ['alice-id'] }]), version: 0n });
    // magic, format version, krl_version (both 0) are equal; generated_date differs; the rest is equal.
    expect(ours.subarray(0, 20)).toEqual(refBytes.subarray(0, 20));
    expect(ours.subarray(28)).toEqual(refBytes.subarray(28));
    const file = writeKrl(ours);
    for (const c of [revoked5, revokedBig, kept, byId, otherCa5]) expect(query(file, c)).toBe(query(ref, c));
  });
});
