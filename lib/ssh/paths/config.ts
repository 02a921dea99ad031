/** config/ca (the default issuer), public_key and config/zeroaddress. */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { purgeIssuers } from '../issuer-admin';
import { DEFAULT_REF } from '../issuer-ref';
import { findIssuer, importIssuer } from '../issuers';
import { checkName } from '../names';
import { SshStore } from '../ssh-store';
import { caKeyFields, caKeyOf, issuerData } from './issuer-fields';

const NO_CA = "keys haven't been configured yet";

export const configPaths = [
  definePath({
    pattern: 'config/ca',
    fields: caKeyFields,
    help: 'Generate or import a CA key pair as a new issuer and make it the default; read the default issuer; delete every issuer.',
    operations: {
      // As OpenBao: a new issuer, made the default (the one before stays, under issuers).
      write: async (req) => {
        const { key, generated } = await caKeyOf(req.data);
        const { issuer } = await importIssuer(new SshStore(req.deps, req.part), { key, name: '', setDefault: true });
        // The spec's answer: 204 for a submitted pair, the public key (and, as OpenBao, the issuer) for a generated one.
        return generated ? { data: issuerData(issuer) } : undefined;
      },
      read: async (req) => {
        const issuer = await findIssuer(new SshStore(req.deps, req.part), DEFAULT_REF);
        if (!issuer) throw new BadRequest(NO_CA);
        return { data: issuerData(issuer) };
      },
      delete: async (req) => {
        await purgeIssuers(new SshStore(req.deps, req.part));
      },
    },
  }),
  definePath({
    pattern: 'public_key',
    fields: {},
    help: "The default issuer's public key, as text (no token needed).",
    unauthenticated: ['read'],
    operations: {
      read: async (req) => {
        const issuer = await findIssuer(new SshStore(req.deps, req.part), DEFAULT_REF);
        if (!issuer) throw new NotFound();
        return { raw: { body: issuer.publicKey, contentType: 'text/plain; charset=utf-8' } };
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
