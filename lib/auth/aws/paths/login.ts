/** auth/aws/login: an iam login with a signed sts:GetCallerIdentity request (hvac's auth.aws.iam_login). */
import { BadRequest, HttpError } from '../../../errors';
import { f } from '../../../http/fields';
import { definePath, type Req, type Result } from '../../../http/path';
import { countedLogin, issueLoginToken } from '../../login';
import type { AuthMount } from '../../../auth-mounts';
import { iamLogin } from '../login';
import { AwsAuthStore, DEFAULT_CLIENT_CONFIG } from '../store';
import { StsUnreachable } from '../sts-call';

const EC2_FIELDS = ['pkcs7', 'identity', 'signature', 'nonce'] as const;

const loginFields = {
  role: f.string({ default: '', description: "the role; the caller's IAM user or role name when empty" }),
  iam_http_request_method: f.string({ default: '', description: 'POST' }),
  iam_request_url: f.string({ default: '', description: "base64 of the signed request's URL (https://sts.amazonaws.com/)" }),
  iam_request_body: f.string({ default: '', description: 'base64 of Action=GetCallerIdentity&Version=2011-06-15' }),
  iam_request_headers: f.any({ description: "the signed request's headers: base64 JSON of names to a value or a list of values" }),
  ...Object.fromEntries(EC2_FIELDS.map((k) => [k, f.any({ description: 'ec2 login: not supported' })])),
};

export function loginPaths(mount: AuthMount) {
  return [
    definePath({
      pattern: 'login',
      fields: loginFields,
      unauthenticated: ['write'],
      help: "Log in with a signed sts:GetCallerIdentity request; it is verified by this mount's own STS endpoint.",
      operations: { write: (req) => countedLogin(mount.type, () => logIn(req, mount)) },
    }),
  ];
}

/** The login: ec2 fields refused, the signed request verified through STS, then a Latchkey token (STS unreachable: 502). */
async function logIn(req: Req<typeof loginFields>, mount: AuthMount): Promise<Result> {
  const d = req.data;
  if (EC2_FIELDS.some((k) => (d as Record<string, unknown>)[k] !== undefined))
    throw new BadRequest('ec2 logins (pkcs7, identity, signature) are not supported: log in with a signed GetCallerIdentity request');
  const store = new AwsAuthStore(req.part);
  const config = (await store.config()) ?? DEFAULT_CLIENT_CONFIG;
  try {
    const grant = await iamLogin(store, config, {
      role: d.role,
      method: d.iam_http_request_method,
      url: d.iam_request_url,
      body: d.iam_request_body,
      headers: d.iam_request_headers ?? {},
    });
    return await issueLoginToken(req, mount, grant);
  } catch (e) {
    if (e instanceof StsUnreachable) throw new HttpError(502, [e.message]);
    throw e;
  }
}
