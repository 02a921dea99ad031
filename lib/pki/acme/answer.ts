/** What an ACME operation answers, before the HTTP layer adds the nonce and the index link. */
export interface AcmeAnswer {
  status: number;
  /** JSON (application/json), or text with `contentType`. */
  body?: unknown;
  contentType?: string;
  location?: string;
  /** Extra Link header values, e.g. `<url>;rel="up"`. */
  links?: string[];
}

export const json = (body: unknown, extra: Omit<AcmeAnswer, 'status' | 'body'> & { status?: number } = {}): AcmeAnswer => ({
  status: 200,
  ...extra,
  body,
});
