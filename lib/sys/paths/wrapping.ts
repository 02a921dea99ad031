/**
 * sys/wrapping/*: wrap, unwrap, lookup, rewrap (response wrapping: lib/sys/wrapping.ts,
 * lib/http/wrap-response.ts).
 *
 * unwrap and rewrap take the wrapping token in X-Vault-Token, or in `token` with the caller's
 * own token in the header. They check tokens themselves: the wrapping token is single-use, and
 * the general authorizer would use it up (and with it the wrapped response) before the handler
 * could hand the response out. A third party's token is checked by the authorizer as usual.
 */
import { BadRequest } from '../../errors';
import { wrappedEnvelope } from '../../http/envelope';
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';
import { requestedWrapTtl } from '../../http/wrap-ttl';
import { paramsAsSent } from '../acl-params';
import { lookupWrap, rewrap, unwrap, type WrappingCall } from '../wrapping';

const tokenField = { token: f.string({ description: 'the wrapping token, when it is not the client token' }) };

/** The wrapping token of an unwrap or rewrap (after checking a third party's own token), and where it is used from. */
async function wrappingCall(req: Req<typeof tokenField>, path: string): Promise<WrappingCall> {
  return { token: await wrappingTokenOf(req, path), remoteAddress: req.remoteAddress };
}

async function wrappingTokenOf(req: Req<typeof tokenField>, path: string): Promise<string> {
  const given = req.data.token;
  if (given && given !== req.token) {
    await req.deps.authorizer.authorize({
      token: req.token,
      path,
      op: 'update',
      sudo: false,
      params: paramsAsSent({ token: given }),
      ...(req.remoteAddress ? { remoteAddress: req.remoteAddress } : {}),
    });
    return given;
  }
  if (!req.token) throw new BadRequest('missing wrapping token: send it as the client token or in the "token" field');
  return req.token;
}

const json = (body: string) => ({ raw: { body, contentType: 'application/json' } });

export const wrappingPaths = [
  definePath({
    pattern: 'wrapping/wrap',
    fields: {},
    takesArbitraryInput: true,
    help: 'Wraps the request body (any keys) in a new wrapping token; needs X-Vault-Wrap-TTL.',
    operations: {
      write: async (req) => {
        if (requestedWrapTtl(req.headers) === undefined) {
          throw new BadRequest('endpoint requires response wrapping to be used: send the X-Vault-Wrap-TTL header');
        }
        return { data: req.input ?? {} };
      },
    },
  }),
  definePath({
    pattern: 'wrapping/unwrap',
    fields: tokenField,
    help: 'Answers the wrapped response, once, and revokes the wrapping token.',
    unauthenticated: ['write'],
    handlerChecksToken: true,
    operations: {
      write: async (req) => json(await unwrap(req.deps, await wrappingCall(req, 'sys/wrapping/unwrap'))),
    },
  }),
  definePath({
    pattern: 'wrapping/lookup',
    fields: tokenField,
    help: 'The creation path, time and TTL of a wrapping token, without using it up.',
    unauthenticated: ['write'],
    operations: {
      write: async (req) => ({
        data: await lookupWrap(req.deps, { token: req.data.token || req.token, remoteAddress: req.remoteAddress }),
      }),
    },
  }),
  definePath({
    pattern: 'wrapping/rewrap',
    fields: tokenField,
    help: 'Moves a wrapped response to a new wrapping token with the same TTL; the old token is revoked.',
    unauthenticated: ['write'],
    handlerChecksToken: true,
    operations: {
      write: async (req) => {
        const info = await rewrap(req.deps, await wrappingCall(req, 'sys/wrapping/rewrap'));
        return json(JSON.stringify(wrappedEnvelope(req.requestId, info, [])));
      },
    },
  }),
];
