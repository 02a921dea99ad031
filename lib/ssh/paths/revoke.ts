/** revoke (SSH certificates), krl (the mount's OpenSSH Key Revocation List, no token) and tidy. */
import { BadRequest } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type ReqContext } from '../../http/path';
import { CertRecords } from '../cert-records';
import {
  buildKrl,
  DEFAULT_SAFETY_BUFFER_SECONDS,
  parseSerialNumber,
  revokeCertificate,
  revokeKeyId,
  revokeSerial,
  tidyCertificates,
  type Revoked,
} from '../revoke';
import { SshStore } from '../ssh-store';

const KRL_TYPE = 'application/octet-stream';

const records = (req: ReqContext) => new CertRecords(req.part);

function answer(revoked: Revoked[]) {
  const latest = Math.max(...revoked.map((r) => r.revokedAt));
  return {
    data: {
      serial_numbers: revoked.map((r) => r.serial.toString()),
      key_ids: [...new Set(revoked.map((r) => r.keyId))],
      issuer_ids: [...new Set(revoked.map((r) => r.issuerId))],
      revocation_time: Math.floor(latest / 1000),
      revocation_time_rfc3339: new Date(latest).toISOString(),
    },
  };
}

export const revokePaths = [
  definePath({
    pattern: 'revoke',
    fields: {
      serial_number: f.string({
        default: '',
        description: 'The serial of a recorded certificate, decimal as ssh-keygen -L shows it (or hex with 0x).',
      }),
      key_id: f.string({ default: '', description: 'Revoke every recorded certificate carrying this key id.' }),
      certificate: f.string({
        default: '',
        description: 'The certificate itself (an OpenSSH certificate line), signed by an issuer of this mount.',
      }),
    },
    help: "Revoke SSH certificates: by serial_number, key_id or the certificate itself (exactly one). The mount's KRL (GET krl) then names them.",
    operations: {
      write: async (req) => {
        const { serial_number: serial, key_id: keyId, certificate } = req.data;
        const given = [serial, keyId, certificate].filter((v) => v !== '').length;
        if (given !== 1) throw new BadRequest('give exactly one of serial_number, key_id and certificate');
        const now = req.deps.now();
        if (serial) return answer([await revokeSerial(records(req), parseSerialNumber(serial), now)]);
        if (keyId) return answer(await revokeKeyId(records(req), keyId, now));
        return answer([await revokeCertificate(new SshStore(req.deps, req.part), records(req), certificate, now)]);
      },
    },
  }),
  definePath({
    pattern: 'krl',
    fields: {},
    help: "The mount's OpenSSH Key Revocation List (binary, PROTOCOL.krl): every revoked certificate, per CA key. For sshd's RevokedKeys; no token needed.",
    unauthenticated: ['read'],
    answers: [KRL_TYPE],
    operations: {
      read: async (req) => ({
        raw: { body: await buildKrl(records(req), `latchkey ${req.mount.path}`, req.deps.now()), contentType: KRL_TYPE },
      }),
    },
  }),
  definePath({
    pattern: 'tidy',
    fields: {
      safety_buffer: f.duration({
        default: DEFAULT_SAFETY_BUFFER_SECONDS,
        description: 'Keep records of certificates expired less than this long ago (default 72h).',
      }),
    },
    help: 'Remove the records of expired certificates and their revocations (the KRL then no longer names them).',
    operations: {
      write: async (req) => {
        const removed = await tidyCertificates(records(req), req.deps.now(), req.data.safety_buffer);
        return { data: { records_removed: removed } };
      },
    },
  }),
];
