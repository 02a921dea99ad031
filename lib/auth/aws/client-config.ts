/** config/client of the aws auth method: the STS endpoint logins are checked against, its region, the server-id header. */
import { InvalidInput } from '../../domain-errors';
import { DEFAULT_CLIENT_CONFIG, type ClientConfig } from './store';

export interface ClientConfigInput {
  stsEndpoint?: string | undefined;
  stsRegion?: string | undefined;
  iamServerIdHeaderValue?: string | undefined;
}

/**
 * The reference's config/client settings this service has no use for: IAM/EC2 credentials and
 * endpoints (it makes no IAM or EC2 call), retries, header allow-lists, plugin identity tokens.
 * Refused, since they would otherwise be stored and ignored.
 */
export const UNSUPPORTED_CONFIG_FIELDS = [
  'access_key',
  'secret_key',
  'endpoint',
  'iam_endpoint',
  'max_retries',
  'allowed_sts_header_values',
  'use_sts_region_from_client',
  'role_arn',
  'identity_token_audience',
  'identity_token_ttl',
] as const;

/** An http(s) origin: no credentials, path, query or fragment (the signed path is "/"). */
export function checkStsEndpoint(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new InvalidInput('sts_endpoint is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInput('sts_endpoint must be an http(s) URL');
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new InvalidInput(
      'sts_endpoint must be a bare origin such as https://sts.us-west-2.amazonaws.com (no credentials, path or query)',
    );
  }
  return url.origin;
}

export function applyClientConfig(current: ClientConfig | undefined, input: ClientConfigInput): ClientConfig {
  const c: ClientConfig = { ...(current ?? DEFAULT_CLIENT_CONFIG) };
  if (input.stsEndpoint !== undefined)
    c.stsEndpoint = input.stsEndpoint === '' ? DEFAULT_CLIENT_CONFIG.stsEndpoint : checkStsEndpoint(input.stsEndpoint);
  if (input.stsRegion !== undefined) {
    const region = input.stsRegion.trim() || DEFAULT_CLIENT_CONFIG.stsRegion;
    if (!/^[a-z]{2}(-[a-z0-9]+){1,4}$/.test(region)) throw new InvalidInput('sts_region is not an AWS region name such as us-east-1');
    c.stsRegion = region;
  }
  if (input.iamServerIdHeaderValue !== undefined) {
    if (input.iamServerIdHeaderValue.length > 1024 || !/^[\x20-\x7e]*$/.test(input.iamServerIdHeaderValue)) {
      throw new InvalidInput('iam_server_id_header_value must be printable ASCII of at most 1024 characters');
    }
    c.iamServerIdHeaderValue = input.iamServerIdHeaderValue;
  }
  return c;
}
