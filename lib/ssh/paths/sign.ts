/** sign/<role>: signs an SSH public key with the mount's CA under a ca role. */
import { BadRequest } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { signKey } from '../sign';
import { SshStore } from '../ssh-store';

export const signPaths = [
  definePath({
    pattern: 'sign/:name',
    fields: {
      name: f.pathParam({ description: 'Role name.' }),
      public_key: f.string({ required: true, description: 'The SSH public key to sign.' }),
      ttl: f.duration({ description: 'Certificate TTL; at most the role max_ttl.' }),
      valid_principals: f.list({ default: [], description: 'Users or hosts the certificate is valid for.' }),
      cert_type: f.string({ default: 'user', description: 'user or host.' }),
      key_id: f.string({ default: '', description: 'Key id (when the role allows it).' }),
      critical_options: f.map({ description: 'Critical options.' }),
      extensions: f.map({ description: 'Extensions.' }),
    },
    help: 'Sign an SSH public key as a user or host certificate.',
    operations: {
      write: async (req) => {
        const store = new SshStore(req.deps, req.mount.path);
        const name = req.data.name;
        const role = await store.getRole(name);
        if (!role) throw new BadRequest(`unknown role: ${name.slice(0, 128)}`);
        const ca = await store.loadCa();
        if (!ca) throw new BadRequest('no CA key is configured on this mount (config/ca)');
        const d = req.data;
        const signed = signKey(
          role,
          ca,
          { publicKey: d.public_key, ttl: d.ttl, validPrincipals: d.valid_principals, certType: d.cert_type, keyId: d.key_id, criticalOptions: d.critical_options, extensions: d.extensions },
          { roleName: name, displayName: req.principal?.displayName ?? '', mountDefaultTtl: req.mount.defaultLeaseTtl, mountMaxTtl: req.mount.maxLeaseTtl, nowMs: req.deps.now() },
        );
        const lease = await req.deps.leases.create({ mount: req.mount.path, engine: 'ssh', path: `sign/${name}`, ttl: signed.ttl, maxTtl: signed.ttl, renewable: false, revoke: { kind: 'cert' }, owner: req.principal?.accessor ?? '' });
        return {
          data: { serial_number: signed.serialNumber, signed_key: signed.signedKey },
          lease: { id: lease.lease_id, duration: signed.ttl, renewable: false },
        };
      },
    },
  }),
];
