import { describe, expect, it } from 'vitest';
import { ListMethodFramer, rewriteRequestLine } from '../../lib/local/list-method';

function run(input: string[]): string {
  const framer = new ListMethodFramer();
  const out = input.flatMap((part) => framer.feed(Buffer.from(part, 'latin1')));
  return Buffer.concat([...out, ...framer.flush()]).toString('latin1');
}

describe('the LIST request-line rewrite', () => {
  it.each([
    ['LIST /v1/pki/roles HTTP/1.1\r\nHost: a\r\n\r\n', 'GET /v1/pki/roles?list=true HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['LIST /v1/pki/roles?pretty HTTP/1.1\r\n\r\n', 'GET /v1/pki/roles?pretty&list=true HTTP/1.1\r\n\r\n'],
    ['GET /v1/LIST HTTP/1.1\r\n\r\n', 'GET /v1/LIST HTTP/1.1\r\n\r\n'],
    ['LISTEN /x HTTP/1.1\r\n\r\n', 'LISTEN /x HTTP/1.1\r\n\r\n'],
  ])('%j', (input, output) => expect(rewriteRequestLine(input)).toBe(output));

  it('frames keep-alive requests with bodies, chunked bodies and split packets', () => {
    const body = 'LIST /not-a-request-line HTTP/1.1\r\n\r\n'; // inside a body: never rewritten
    const input = [
      `POST /a HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      'LIST /b HTTP/1.1\r\nHo',
      'st: x\r\n\r\n',
      'PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nLIST \r\n0\r\n\r\n',
      'LIST /d HTTP/1.1\r\n\r\n',
    ];
    const out = run(input);
    expect(out).toBe(
      `POST /a HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        'GET /b?list=true HTTP/1.1\r\nHost: x\r\n\r\n' +
        'PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nLIST \r\n0\r\n\r\n' +
        'GET /d?list=true HTTP/1.1\r\n\r\n',
    );
  });
});
