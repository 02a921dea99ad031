/**
 * The jwt mount's configuration: exactly one key source (a JWKS URL, an OIDC discovery URL or
 * static PEM public keys, the reference's rule), the issuer bound to every token, the accepted
 * signing algorithms and the default role. A write replaces the whole config, as the reference's.
 */
import { InvalidInput } from '../../domain-errors';
import { checkFetchUrl } from './fetch';
import { checkCaPem, parsePublicKeyPem, type KeySource } from './keys';

/** What the reference's validator accepts: asymmetric algorithms only (no HMAC, no "none"). */
export const SUPPORTED_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'EdDSA'] as const;
export const DEFAULT_ALGS = ['RS256'];

export type JwtConfig = {
  jwksUrl: string;
  jwksCaPem: string;
  oidcDiscoveryUrl: string;
  oidcDiscoveryCaPem: string;
  jwtValidationPubkeys: string[];
  jwtSupportedAlgs: string[];
  boundIssuer: string;
  defaultRole: string;
};

export interface ConfigInput {
  jwksUrl?: string | undefined;
  jwksCaPem?: string | undefined;
  oidcDiscoveryUrl?: string | undefined;
  oidcDiscoveryCaPem?: string | undefined;
  jwtValidationPubkeys?: string[] | undefined;
  jwtSupportedAlgs?: string[] | undefined;
  boundIssuer?: string | undefined;
  defaultRole?: string | undefined;
}

/** Checks a config write (without fetching anything) and answers the record to store. */
export function buildConfig(d: ConfigInput): JwtConfig {
  const c: JwtConfig = {
    jwksUrl: (d.jwksUrl ?? '').trim(),
    jwksCaPem: (d.jwksCaPem ?? '').trim(),
    oidcDiscoveryUrl: (d.oidcDiscoveryUrl ?? '').trim(),
    oidcDiscoveryCaPem: (d.oidcDiscoveryCaPem ?? '').trim(),
    jwtValidationPubkeys: (d.jwtValidationPubkeys ?? []).map((k) => k.trim()).filter(Boolean),
    jwtSupportedAlgs: [...new Set((d.jwtSupportedAlgs ?? []).map((a) => a.trim()).filter(Boolean))],
    boundIssuer: d.boundIssuer ?? '',
    defaultRole: (d.defaultRole ?? '').trim(),
  };
  const sources = [c.jwksUrl, c.oidcDiscoveryUrl, c.jwtValidationPubkeys.length ? 'keys' : ''].filter(Boolean).length;
  if (sources !== 1) throw new InvalidInput("exactly one of 'jwt_validation_pubkeys', 'jwks_url' or 'oidc_discovery_url' must be set");
  if (c.jwksUrl) checkFetchUrl(c.jwksUrl, 'jwks_url');
  if (c.oidcDiscoveryUrl) checkFetchUrl(c.oidcDiscoveryUrl, 'oidc_discovery_url');
  if (c.jwksCaPem && !c.jwksUrl) throw new InvalidInput('jwks_ca_pem is only used with jwks_url');
  if (c.oidcDiscoveryCaPem && !c.oidcDiscoveryUrl) throw new InvalidInput('oidc_discovery_ca_pem is only used with oidc_discovery_url');
  if (c.jwksCaPem) checkCaPem(c.jwksCaPem, 'jwks_ca_pem');
  if (c.oidcDiscoveryCaPem) checkCaPem(c.oidcDiscoveryCaPem, 'oidc_discovery_ca_pem');
  c.jwtValidationPubkeys.forEach((k, i) => parsePublicKeyPem(k, `jwt_validation_pubkeys[${i}]`));
  const bad = c.jwtSupportedAlgs.filter((a) => !(SUPPORTED_ALGS as readonly string[]).includes(a));
  if (bad.length) {
    const shown = bad.map((a) => (/^[\w-]{1,16}$/.test(a) ? a : '(not shown)')).join(', ');
    throw new InvalidInput(`invalid jwt_supported_algs: unsupported signing algorithm ${shown}; supported: ${SUPPORTED_ALGS.join(', ')}`);
  }
  return c;
}

export function keySourceOf(c: JwtConfig): KeySource {
  if (c.jwksUrl) return { kind: 'jwks', url: c.jwksUrl, ca: c.jwksCaPem };
  if (c.oidcDiscoveryUrl) return { kind: 'discovery', url: c.oidcDiscoveryUrl, ca: c.oidcDiscoveryCaPem };
  return { kind: 'static', pems: c.jwtValidationPubkeys };
}

export function algorithmsOf(c: JwtConfig): string[] {
  return c.jwtSupportedAlgs.length ? c.jwtSupportedAlgs : DEFAULT_ALGS;
}

/** The config in the reference's read-back names (the fields Latchkey serves). */
export function configView(c: JwtConfig): Record<string, unknown> {
  return {
    jwks_url: c.jwksUrl,
    jwks_ca_pem: c.jwksCaPem,
    oidc_discovery_url: c.oidcDiscoveryUrl,
    oidc_discovery_ca_pem: c.oidcDiscoveryCaPem,
    jwt_validation_pubkeys: c.jwtValidationPubkeys,
    jwt_supported_algs: c.jwtSupportedAlgs,
    bound_issuer: c.boundIssuer,
    default_role: c.defaultRole,
  };
}
