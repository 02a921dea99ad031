/**
 * Challenge responders for the ACME validation tests, on 127.0.0.1 (or ::1): an HTTP server
 * answering `/.well-known/acme-challenge/<token>` from a table (or a custom handler), and a TLS
 * server offering a tls-alpn-01 certificate (RFC 8737) made here with @peculiar/x509, with
 * knobs to make it wrong (other names, a non-critical or missing extension, another digest,
 * other ALPN protocols). Each records what it was asked (Host headers, SNI names).
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createHash, webcrypto } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSecureContext, createServer as createTlsServer, type Server as TlsServer } from 'node:tls';

export const ACME_IDENTIFIER_OID = '1.3.6.1.5.5.7.1.31';

export interface ChallengeHttpServer {
  port: number;
  /** token -> body to answer (404 for a token not in it). */
  answers: Map<string, string>;
  /** Host header of every request, in order. */
  hosts: string[];
  /** Replaces the table lookup for the next requests (undefined: back to the table). */
  handler?: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

export async function startChallengeHttpServer(host = '127.0.0.1', port = 0): Promise<ChallengeHttpServer> {
  const state: ChallengeHttpServer = { port: 0, answers: new Map(), hosts: [], close: async () => {} };
  const server: Server = createHttpServer((req, res) => {
    state.hosts.push(req.headers.host ?? '');
    if (state.handler) return state.handler(req, res);
    const m = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '');
    const body = m ? state.answers.get(m[1]!) : undefined;
    if (body === undefined) res.writeHead(404).end('not found');
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  await new Promise<void>((res) => server.listen(port, host, () => res()));
  state.port = (server.address() as AddressInfo).port;
  state.close = () =>
    new Promise((res) => {
      server.closeAllConnections();
      server.close(() => res());
    });
  return state;
}

export interface AlpnCertOptions {
  /** subjectAltNames: 'dns:<name>' or 'ip:<address>'. */
  names: string[];
  /** The key authorization whose SHA-256 the extension carries (omit `digest` to use it). */
  keyAuthorization?: string;
  /** The extension's raw 32 bytes, instead of SHA-256(keyAuthorization). */
  digest?: Buffer;
  /** Default true; false marks the acmeIdentifier extension non-critical. */
  critical?: boolean;
  /** Leave the acmeIdentifier extension out. */
  omitExtension?: boolean;
}

/** A self-signed tls-alpn-01 certificate and its key, as PEM. */
export async function alpnCertificate(o: AlpnCertOptions): Promise<{ certPem: string; keyPem: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const digest =
    o.digest ??
    createHash('sha256')
      .update(o.keyAuthorization ?? '')
      .digest();
  // id-pe-acmeIdentifier's value: Authorization ::= OCTET STRING (SIZE (32)).
  const octetString = Buffer.concat([Buffer.from([0x04, digest.length]), digest]);
  const extensions: x509.Extension[] = [
    new x509.SubjectAlternativeNameExtension(
      o.names.map((n) => {
        const [type, value] = [n.slice(0, n.indexOf(':')), n.slice(n.indexOf(':') + 1)];
        return { type: type === 'ip' ? ('ip' as const) : ('dns' as const), value };
      }),
      true,
    ),
  ];
  if (!o.omitExtension) extensions.push(new x509.Extension(ACME_IDENTIFIER_OID, o.critical ?? true, octetString));
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: '01',
      name: 'CN=ACME challenge',
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 3_600_000),
      keys: keys as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'],
      signingAlgorithm: alg,
      extensions,
    },
    webcrypto as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[1],
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { certPem: cert.toString('pem'), keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

export interface AlpnServer {
  port: number;
  /** SNI of every handshake that sent one, in order. */
  servernames: string[];
  close(): Promise<void>;
}

/**
 * A TLS server presenting `cert`. `alpn` is what it accepts (default ['acme-tls/1']); null
 * makes it take no part in ALPN at all.
 */
export async function startAlpnServer(
  cert: { certPem: string; keyPem: string },
  alpn: string[] | null = ['acme-tls/1'],
  host = '127.0.0.1',
  port = 0,
): Promise<AlpnServer> {
  const servernames: string[] = [];
  const options = { cert: cert.certPem, key: cert.keyPem, ...(alpn ? { ALPNProtocols: alpn } : {}) };
  const context = createSecureContext(options);
  // The SNI is recorded during the handshake, before the client can see the certificate.
  const SNICallback = (name: string, cb: (e: Error | null, ctx: typeof context) => void) => {
    servernames.push(name);
    cb(null, context);
  };
  const server: TlsServer = createTlsServer({ ...options, SNICallback }, (socket) => {
    socket.on('error', () => socket.destroy());
    socket.end();
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((res) => server.listen(port, host, () => res()));
  return {
    port: (server.address() as AddressInfo).port,
    servernames,
    close: () => new Promise((res) => server.close(() => res())),
  };
}
