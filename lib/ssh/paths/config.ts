/** config/ca, public_key and config/zeroaddress. */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { generateSshKey, importCaKey } from '../ca-key';
import { checkName } from '../names';
import { SshStore } from '../ssh-store';

const NO_CA = "keys haven't been configured yet";

export const configPaths = [
  definePath({
    pattern: 'config/ca',
    fields: {
      private_key: f.string({ default: '', description: 'CA private key (when not generating).' }),
      public_key: f.string({ default: '', description: 'CA public key (when not generating).' }),
      generate_signing_key: f.bool({ description: 'Generate the CA key pair (default true).' }),
      key_type: f.string({ default: 'ssh-rsa', description: 'ssh-rsa, ecdsa-sha2-nistp256/384/521, ssh-ed25519, or rsa, ec, ed25519.' }),
      key_bits: f.int({ default: 0, min: 0, description: 'RSA size (0: 4096) or EC curve (0: 256).' }),
    },
    help: 'Generate or import the CA key pair (replacing any), read its public key, delete it.',
    operations: {
      write: async (req) => {
        const d = req.data;
        const store = new SshStore(req.deps, req.part);
        const supplied = d.private_key !== '' || d.public_key !== '';
        if (supplied && d.generate_signing_key === true)
          throw new BadRequest('public_key and private_key must not be set when generate_signing_key is true');
        if (!supplied && d.generate_signing_key === false) throw new BadRequest('missing public_key and private_key');
        if (supplied) {
          if (!d.private_key) throw new BadRequest('missing private_key');
          if (!d.public_key) throw new BadRequest('missing public_key');
          await store.saveCa(importCaKey(d.private_key, d.public_key));
          return;
        }
        const line = await store.saveCa(await generateSshKey({ keyType: d.key_type, keyBits: d.key_bits }));
        return { data: { public_key: line } };
      },
      read: async (req) => {
        const line = await new SshStore(req.deps, req.part).caPublicLine();
        if (!line) throw new BadRequest(NO_CA);
        return { data: { public_key: line } };
      },
      delete: async (req) => {
        await new SshStore(req.deps, req.part).deleteCa();
      },
    },
  }),
  definePath({
    pattern: 'public_key',
    fields: {},
    help: 'The CA public key, as text (no token needed).',
    unauthenticated: ['read'],
    operations: {
      read: async (req) => {
        const line = await new SshStore(req.deps, req.part).caPublicLine();
        if (!line) throw new NotFound();
        return { raw: { body: line, contentType: 'text/plain; charset=utf-8' } };
      },
    },
  }),
  definePath({
    pattern: 'config/zeroaddress',
    fields: { roles: f.list({ default: [], description: 'Existing roles that accept any IP address (required on write).' }) },
    help: 'Roles that may issue credentials for any IP address.',
    operations: {
      read: async (req) => {
        const roles = await new SshStore(req.deps, req.part).zeroAddressRoles();
        if (roles.length === 0) throw new NotFound();
        return { data: { roles } };
      },
      write: async (req) => {
        if (req.data.roles.length === 0) throw new BadRequest('missing roles');
        const roles = [...new Set(req.data.roles.map((r) => checkName(r, 'role')))];
        const store = new SshStore(req.deps, req.part);
        for (const name of roles) {
          if (!(await store.getRole(name))) throw new BadRequest(`role "${name}" does not exist`);
        }
        await store.setZeroAddressRoles(roles);
      },
      delete: async (req) => {
        await new SshStore(req.deps, req.part).deleteZeroAddress();
      },
    },
  }),
];
