/**
 * The fields of an aws auth `iam` login: an sts:GetCallerIdentity POST signed with SigV4 by the
 * standard AWS credential chain (environment, shared profile, SSO, container and instance roles:
 * `fromNodeProviderChain`), as the vault CLI's aws login builds it: the request's method, URL,
 * body and headers (a JSON map of header lists) base64-encoded, the X-Vault-AWS-IAM-Server-ID
 * header added before signing when the server requires one. Nothing is sent to AWS.
 */
import { createHash, createHmac } from 'node:crypto';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Checksum, SourceData } from '@smithy/types';
import { SignatureV4 } from '@smithy/signature-v4';

export const GET_CALLER_IDENTITY_BODY = 'Action=GetCallerIdentity&Version=2011-06-15';

export interface AwsLoginOptions {
  /** The value of X-Vault-AWS-IAM-Server-ID the server's config requires. */
  serverId?: string;
  /** The STS region signed for (default us-east-1, whose endpoint is the global sts.amazonaws.com). */
  region?: string;
  /** Credentials or a provider of them (default: the standard chain). */
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** The signing time (tests). */
  date?: Date;
}

/** node:crypto as the Checksum the signer takes (SHA-256, or HMAC-SHA-256 with a secret). */
const bytes = (d: SourceData) =>
  typeof d === 'string'
    ? Buffer.from(d)
    : d instanceof ArrayBuffer
      ? new Uint8Array(d)
      : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

class Sha256 implements Checksum {
  private readonly h;
  constructor(secret?: SourceData) {
    this.h = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
  }
  update(data: Uint8Array): void {
    this.h.update(data);
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.h.digest()));
  }
  reset(): void {}
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

export const stsHost = (region: string) => (region === 'us-east-1' ? 'sts.amazonaws.com' : `sts.${region}.amazonaws.com`);

export async function awsLoginFields(o: AwsLoginOptions = {}): Promise<Record<string, string>> {
  const region = o.region ?? 'us-east-1';
  const host = stsHost(region);
  const signer = new SignatureV4({
    credentials: o.credentials ?? fromNodeProviderChain(),
    region,
    service: 'sts',
    sha256: Sha256,
    applyChecksum: false,
  });
  const headers: Record<string, string> = {
    host,
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    ...(o.serverId ? { 'x-vault-aws-iam-server-id': o.serverId } : {}),
  };
  const signed = await signer.sign(
    { method: 'POST', protocol: 'https:', hostname: host, path: '/', query: {}, headers, body: GET_CALLER_IDENTITY_BODY },
    o.date ? { signingDate: o.date } : {},
  );
  const sent: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(signed.headers)) sent[k] = [v];
  return {
    iam_http_request_method: 'POST',
    iam_request_url: b64(`https://${host}/`),
    iam_request_body: b64(GET_CALLER_IDENTITY_BODY),
    iam_request_headers: b64(JSON.stringify(sent)),
  };
}
