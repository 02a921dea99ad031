/**
 * ACME errors (RFC 8555 section 6.7): an `AcmeProblem` carries its error type and HTTP status;
 * the ACME paths render it as `application/problem+json`. Domain code throws these, never HTTP.
 */

export type AcmeErrorType =
  | 'accountDoesNotExist'
  | 'alreadyRevoked'
  | 'badCSR'
  | 'badNonce'
  | 'badPublicKey'
  | 'badRevocationReason'
  | 'badSignatureAlgorithm'
  | 'connection'
  | 'dns'
  | 'externalAccountRequired'
  | 'incorrectResponse'
  | 'invalidContact'
  | 'malformed'
  | 'orderNotReady'
  | 'rejectedIdentifier'
  | 'serverInternal'
  | 'tls'
  | 'unauthorized'
  | 'unsupportedContact'
  | 'unsupportedIdentifier';

export const ACME_ERROR = 'urn:ietf:params:acme:error:';

/** The status each type is answered with (RFC 8555 and what Boulder and the reference server send). */
const STATUS: Record<AcmeErrorType, number> = {
  accountDoesNotExist: 400,
  alreadyRevoked: 400,
  badCSR: 400,
  badNonce: 400,
  badPublicKey: 400,
  badRevocationReason: 400,
  badSignatureAlgorithm: 400,
  connection: 400,
  dns: 400,
  externalAccountRequired: 400,
  incorrectResponse: 400,
  invalidContact: 400,
  malformed: 400,
  orderNotReady: 403,
  rejectedIdentifier: 400,
  serverInternal: 500,
  tls: 400,
  unauthorized: 403,
  unsupportedContact: 400,
  unsupportedIdentifier: 400,
};

export interface ProblemDocument {
  type: string;
  detail: string;
  status: number;
  [k: string]: unknown;
}

export class AcmeProblem extends Error {
  readonly status: number;
  /** For badSignatureAlgorithm: the algorithms this server accepts. */
  readonly algorithms: string[] | undefined;
  /** A Location header to send with the problem (409 on keyChange: the account holding the key). */
  readonly location: string | undefined;
  constructor(
    readonly kind: AcmeErrorType,
    detail: string,
    options: { status?: number; algorithms?: string[]; location?: string } = {},
  ) {
    super(detail);
    this.status = options.status ?? STATUS[kind];
    this.algorithms = options.algorithms;
    this.location = options.location;
  }

  get document(): ProblemDocument {
    return {
      type: ACME_ERROR + this.kind,
      detail: this.message,
      status: this.status,
      ...(this.algorithms ? { algorithms: this.algorithms } : {}),
    };
  }
}

export const malformed = (detail: string) => new AcmeProblem('malformed', detail);
export const unauthorized = (detail: string) => new AcmeProblem('unauthorized', detail);
