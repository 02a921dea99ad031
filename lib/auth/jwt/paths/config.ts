/** auth/<jwt>/config: the key source, bound issuer, algorithms and default role (read, write). */
import { InvalidInput } from '../../../domain-errors';
import { BadRequest, NotFound } from '../../../errors';
import { f } from '../../../http/fields';
import { definePath } from '../../../http/path';
import { buildConfig, configView, keySourceOf } from '../config';
import { JwtStore } from '../jwt-store';
import { createVerifier, rememberVerifier } from '../keys';

const notSupported = 'not supported (the browser OIDC flow and provider specifics): refused when set';

export const configFields = {
  jwks_url: f.string({ description: 'JWKS URL whose keys verify the tokens (one key source only)' }),
  jwks_ca_pem: f.string({ description: 'PEM CA certificate(s) trusted for jwks_url instead of the system roots' }),
  oidc_discovery_url: f.string({
    description: 'OIDC issuer URL; its /.well-known/openid-configuration names the JWKS (one key source only)',
  }),
  oidc_discovery_ca_pem: f.string({ description: 'PEM CA certificate(s) trusted for oidc_discovery_url' }),
  jwt_validation_pubkeys: f.list({ description: 'PEM public keys (or certificates) that verify the tokens (one key source only)' }),
  jwt_supported_algs: f.list({ description: 'accepted signing algorithms (default RS256): RS*, PS*, ES*, EdDSA' }),
  bound_issuer: f.string({ description: 'the iss claim every token must carry' }),
  default_role: f.string({ description: 'the role of a login that names none' }),
  oidc_client_id: f.string({ description: notSupported }),
  oidc_client_secret: f.string({ description: notSupported }),
  oidc_response_mode: f.string({ description: notSupported }),
  oidc_response_types: f.list({ description: notSupported }),
  jwks_pairs: f.any({ description: notSupported }),
  provider_config: f.any({ description: notSupported }),
  namespace_in_state: f.bool({ description: "not supported: only true (Vault's default) is accepted" }),
  unsupported_critical_cert_extensions: f.list({ description: notSupported }),
};

type ConfigData = { [K in keyof typeof configFields]?: unknown };

function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

const UNSUPPORTED = [
  'oidc_client_id',
  'oidc_client_secret',
  'oidc_response_mode',
  'oidc_response_types',
  'jwks_pairs',
  'provider_config',
  'unsupported_critical_cert_extensions',
] as const;

function refuseUnsupported(d: ConfigData): void {
  const refused: string[] = UNSUPPORTED.filter((k) => isSet(d[k]));
  if (d.namespace_in_state === false) refused.push('namespace_in_state');
  if (refused.length) throw new BadRequest(`not supported by Latchkey, refused rather than ignored: ${refused.join(', ')}`);
}

export const configPaths = [
  definePath({
    pattern: 'config',
    fields: configFields,
    help: 'Configure how tokens are verified: exactly one of jwks_url, oidc_discovery_url or jwt_validation_pubkeys.',
    operations: {
      read: async (req) => {
        const c = await new JwtStore(req.part).config();
        if (!c) throw new NotFound();
        return { data: configView(c) };
      },
      write: async (req) => {
        const d = req.data;
        refuseUnsupported(d);
        const config = buildConfig({
          jwksUrl: d.jwks_url,
          jwksCaPem: d.jwks_ca_pem,
          oidcDiscoveryUrl: d.oidc_discovery_url,
          oidcDiscoveryCaPem: d.oidc_discovery_ca_pem,
          jwtValidationPubkeys: d.jwt_validation_pubkeys,
          jwtSupportedAlgs: d.jwt_supported_algs,
          boundIssuer: d.bound_issuer,
          defaultRole: d.default_role,
        });
        // As the reference: a remote key source must answer now (a JWKS, a discovery document naming one).
        const source = keySourceOf(config);
        const verifier = createVerifier(source);
        try {
          await verifier.check();
        } catch (e) {
          if (!(e instanceof InvalidInput)) throw e;
          throw new BadRequest(`error checking ${source.kind === 'jwks' ? 'jwks URL' : 'oidc discovery URL'}: ${e.message}`);
        }
        await new JwtStore(req.part).putConfig(config);
        rememberVerifier(req.part.name, source, verifier);
      },
    },
  }),
];
