/**
 * The OCSP responder's paths (RFC 6960 appendix A), unauthenticated as in OpenBao: `POST ocsp`
 * with the DER request as the body (application/ocsp-request), `GET ocsp/<base64 DER request>`
 * (standard or URL-safe alphabet, URL-escaped or not). Every answer is an OCSP response
 * (application/ocsp-response): 200 when signed, OpenBao's 400 for `malformedRequest` and 401 for
 * `unauthorized`, 500 for `internalError` (a fault of the service, never of the input). Answers
 * are not to be kept by HTTP caches: each one reflects the revocations made before it.
 */
import { f } from '../../http/fields';
import { definePath, type ReqContext, type Result } from '../../http/path';
import { errorResponse, MAX_REQUEST_BYTES } from '../der/ocsp';
import { answerOcsp, type OcspAnswer } from '../ocsp';

const OCSP_RESPONSE = 'application/ocsp-response';
const HTTP_STATUS: Record<OcspAnswer['status'], number> = {
  successful: 200,
  malformedRequest: 400,
  unauthorized: 401,
  internalError: 500,
  tryLater: 503,
  sigRequired: 401,
};

const render = (a: OcspAnswer): Result => ({
  raw: { body: a.der, contentType: OCSP_RESPONSE, status: HTTP_STATUS[a.status] },
  headers: { 'cache-control': 'no-store' },
});

const malformed = (): Result => render({ status: 'malformedRequest', der: errorResponse('malformedRequest') });

/** The request of a GET: base64 in the path, `+`, `/` and `=` sent as they are or URL-escaped (the edge decodes the path once). */
function getRequestDer(encoded: string): Buffer | undefined {
  const text = encoded.includes('%') ? safeDecode(encoded) : encoded;
  if (text === undefined || text.length === 0 || text.length > (MAX_REQUEST_BYTES * 4) / 3 + 4) return undefined;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

const answer = async (req: ReqContext, der: Buffer | undefined): Promise<Result> =>
  der ? render(await answerOcsp(req.deps, req.part, der)) : malformed();

export const ocspPaths = [
  definePath({
    pattern: 'ocsp',
    fields: {},
    help: 'OCSP (RFC 6960): the DER request as the body (application/ocsp-request); answers a DER OCSP response.',
    unauthenticated: ['write'],
    rawBody: true,
    answers: [OCSP_RESPONSE],
    operations: {
      write: (req) => answer(req, req.body && req.body.length <= MAX_REQUEST_BYTES ? Buffer.from(req.body) : undefined),
    },
  }),
  definePath({
    pattern: 'ocsp/*req',
    fields: { req: f.pathParam({ description: 'The DER OCSP request, base64 (URL-escaped or not).' }) },
    help: 'OCSP (RFC 6960) by GET: the base64 DER request in the path; answers a DER OCSP response.',
    unauthenticated: ['read'],
    answers: [OCSP_RESPONSE],
    operations: { read: (req) => answer(req, getRequestDer(req.data.req)) },
  }),
];
