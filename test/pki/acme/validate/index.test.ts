/** validateChallenge: the entry the ACME core calls always ends with an outcome, within its budget. */
import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { validateChallenge, type ChallengeKind } from '../../../../lib/pki/acme/validate';

const URN = 'urn:ietf:params:acme:error:';

describe('validateChallenge', () => {
  it('answers malformed for a challenge type it does not know', async () => {
    const o = await validateChallenge('email-reply-00' as ChallengeKind, { type: 'dns', value: 'a.test' }, 't', 'k', {
      httpPort: 1,
      tlsPort: 1,
    });
    expect(o).toEqual({ ok: false, type: `${URN}malformed`, detail: 'unknown challenge type "email-reply-00"' });
  });

  it('answers an outcome, not an exception, for an identifier that is no host name', async () => {
    const o = await validateChallenge('http-01', { type: 'dns', value: 'a b/c' }, 't', 'k', { httpPort: 1, tlsPort: 1 });
    expect(o).toMatchObject({ ok: false, type: `${URN}malformed` });
  });

  it('ends a validation whose budget is spent before the resolver answers', async () => {
    // The resolver is a UDP socket that reads queries and never answers.
    const sink = createSocket('udp4');
    await new Promise<void>((r) => sink.bind(0, '127.0.0.1', () => r()));
    const port = (sink.address() as { port: number }).port;
    try {
      const o = await validateChallenge('dns-01', { type: 'dns', value: 'a.test' }, 't', 'k', {
        resolver: `127.0.0.1:${port}`,
        httpPort: 1,
        tlsPort: 1,
        timeoutMs: 200,
      });
      expect(o).toEqual({ ok: false, type: `${URN}dns`, detail: 'dns-01: the TXT lookup of _acme-challenge.a.test failed (ETIMEOUT)' });
    } finally {
      sink.close();
    }
  });
});
