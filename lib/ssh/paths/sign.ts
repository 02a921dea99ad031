/** sign/<role> (sign a submitted SSH public key) and issue/<role> (generate a key pair and sign it), under a ca role. */
import { metrics, mountOf } from '../../metrics/catalog';
import { f, type FieldValues } from '../../http/fields';
import { definePath, type Req, type Result } from '../../http/path';
import { requireRole } from '../../http/role-required';
import { CertRecords, serialHex } from '../cert-records';
import { issueKey } from '../issue';
import { DEFAULT_REF } from '../issuer-ref';
import type { LoadedIssuer } from '../issuer-store';
import { signingIssuer } from '../issuers';
import type { Role } from '../role';
import { signedRecordWrites, type CertRevoke } from '../revoke';
import { signKey, type Signed, type SignContext } from '../sign';
import { SshStore } from '../ssh-store';
import { sshRole } from './ssh-role';

const certFields = {
  name: f.pathParam({ description: 'Role name.' }),
  ttl: f.duration({ description: 'Certificate TTL; at most the role max_ttl.' }),
  valid_principals: f.list({ default: [], description: 'Users or hosts the certificate is valid for.' }),
  cert_type: f.string({ default: 'user', description: 'user or host.' }),
  key_id: f.string({ default: '', description: 'Key id (when the role allows it).' }),
  critical_options: f.map({ description: 'Critical options.' }),
  extensions: f.map({ description: 'Extensions.' }),
};

type NamedReq = Req<Pick<typeof certFields, 'name'>>;

interface Signing {
  role: Role;
  /** The role's issuer (issuer_ref, else the default): the certificate's signing CA. */
  ca: LoadedIssuer;
  ctx: SignContext;
}

async function signing(req: NamedReq): Promise<Signing> {
  const { name, role } = await requireRole(sshRole, req, req.data.name);
  const ca = await signingIssuer(new SshStore(req.deps, req.part), role.issuerRef ?? DEFAULT_REF);
  const ctx = {
    roleName: name,
    displayName: req.principal?.displayName ?? '',
    identity: req.principal?.identity,
    mountDefaultTtl: req.mount.defaultLeaseTtl,
    mountMaxTtl: req.mount.maxLeaseTtl,
    nowMs: req.deps.now(),
  };
  return { role, ca, ctx };
}

/**
 * The answer of both: the certificate, extra data, and the secret the edge leases
 * (non-renewable). The certificate is recorded with its lease (unless the role says no_store), and
 * revoking the lease revokes it (engine.ts).
 */
function answer(req: NamedReq, s: Signing, signed: Signed, extra: Record<string, string> = {}): Result {
  const stored = !s.role.noStore;
  metrics.ssh.signed.inc({ mount: mountOf(req.part.name), cert_type: signed.cert.certType });
  const revoke: CertRevoke = stored ? { kind: 'cert', serial: serialHex(signed.cert.serial) } : { kind: 'cert' };
  return {
    data: { serial_number: signed.serialNumber, signed_key: signed.signedKey, ...extra },
    // The certificate's record lands with its lease, in one transaction (lib/sys/leases.ts).
    secret: { revoke, ttl: signed.ttl, ...(stored ? { records: signedRecordWrites(new CertRecords(req.part), signed, s.ca) } : {}) },
  };
}

/** The certificate fields sign and issue share, wire to domain. */
function certRequest(d: FieldValues<typeof certFields>) {
  return {
    ttl: d.ttl,
    validPrincipals: d.valid_principals,
    certType: d.cert_type,
    keyId: d.key_id,
    criticalOptions: d.critical_options,
    extensions: d.extensions,
  };
}

export const signPaths = [
  definePath({
    pattern: 'sign/:name',
    fields: { ...certFields, public_key: f.string({ required: true, description: 'The SSH public key to sign.' }) },
    help: 'Sign an SSH public key as a user or host certificate.',
    operations: {
      write: async (req) => {
        const s = await signing(req);
        const d = req.data;
        const input = { ...certRequest(d), publicKey: d.public_key };
        // OpenBao 2.3 names the issuer in sign's answer.
        return answer(req, s, signKey(s.role, s.ca, input, s.ctx), { issuer_id: s.ca.id });
      },
    },
  }),
  definePath({
    pattern: 'issue/:name',
    fields: {
      ...certFields,
      key_type: f.string({ default: 'rsa', description: 'Key pair type: rsa, ec or ed25519 (or an OpenSSH type name).' }),
      key_bits: f.int({ default: 0, min: 0, description: 'RSA size (0: 4096) or EC curve (0: 256).' }),
    },
    help: 'Generate a key pair and sign its public key as a user or host certificate.',
    operations: {
      write: async (req) => {
        const s = await signing(req);
        const d = req.data;
        const input = { ...certRequest(d), keyType: d.key_type, keyBits: d.key_bits };
        const issued = await issueKey(s.role, s.ca, input, s.ctx);
        return answer(req, s, issued, { private_key: issued.privateKey, private_key_type: issued.privateKeyType });
      },
    },
  }),
];
