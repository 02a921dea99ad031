import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { request } from 'node:https';
import { describe, expect, it } from 'vitest';
import { goX509 } from './go-x509';
import { localhostTls } from './pki-cert';
import { verifyChain } from './openssl';

describe('localhostTls (HTTPS material for local fakes)', () => {
  it('gives a chain openssl and Go verify and that Node TLS accepts for 127.0.0.1', async () => {
    const tls = await localhostTls();
    expect(verifyChain(tls.certPem, tls.caPem)).toMatchObject({ ok: true });
    const go = goX509();
    try {
      expect(await go.verify(tls.certPem, [tls.caPem], [], 'localhost')).toMatchObject({ ok: true });
    } finally {
      await go.close();
    }
    const server = createServer({ cert: tls.certPem, key: tls.keyPem }, (_req, res) => res.end('hello'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, ca: tls.caPem, path: '/' }, (res) => {
          let b = '';
          res.on('data', (c: Buffer) => (b += c.toString()));
          res.on('end', () => resolve(b));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('hello');
    } finally {
      server.close();
    }
  });
});
