/**
 * Node's HTTP parser refuses the LIST method that existing secrets-server clients send
 * (hvac, the reference CLI). The local server therefore reads each connection through this
 * framer (http-server.ts): it frames each HTTP/1.1 request on the way in and rewrites a `LIST /p?q` request line to
 * `GET /p?q&list=true` — the same operation by the contract — and passes everything else, and
 * all responses, through unchanged.
 */
const MAX_HEAD = 64 * 1024;

type State =
  | { kind: 'head' }
  | { kind: 'body'; left: number }
  | { kind: 'chunk-size' }
  | { kind: 'chunk-data'; left: number }
  | { kind: 'trailers' }
  | { kind: 'raw' };

export function rewriteRequestLine(head: string): string {
  const m = /^LIST ([^ ]+) (HTTP\/1\.[01])\r\n/.exec(head);
  if (!m) return head;
  const target = m[1]!;
  const sep = target.includes('?') ? '&' : '?';
  return `GET ${target}${sep}list=true ${m[2]}\r\n${head.slice(m[0].length)}`;
}

/** The rewrite as a push parser: `feed` takes bytes off the wire and returns the bytes to pass on. */
export class ListMethodFramer {
  private buf: Buffer = Buffer.alloc(0);
  private state: State = { kind: 'head' };
  private out: Buffer[] = [];
  private rewrote = false;

  feed(chunk: Buffer): Buffer[] {
    const fresh = this.buf.length === 0;
    this.rewrote = false;
    this.buf = fresh ? chunk : Buffer.concat([this.buf, chunk]);
    while (this.buf.length && this.step());
    const out = this.out;
    this.out = [];
    // The common case, whole requests with no LIST and nothing held back, passes as it came.
    return fresh && !this.rewrote && this.buf.length === 0 && out.length > 1 ? [chunk] : out;
  }

  /** What is left at the end of the stream, unframed. */
  flush(): Buffer[] {
    const rest = this.buf.length ? [this.buf] : [];
    this.buf = Buffer.alloc(0);
    return rest;
  }

  /** Consumes what it can from the buffer; false when it needs more bytes. */
  private step(): boolean {
    const s = this.state;
    switch (s.kind) {
      case 'raw':
        return this.pass(this.buf.length);
      case 'head':
        return this.takeHead();
      case 'body':
        return this.passCounted(s.left, (left) => (left ? { kind: 'body', left } : { kind: 'head' }));
      case 'chunk-size':
        return this.takeChunkSize();
      case 'chunk-data':
        return this.passCounted(s.left, (left) => (left ? { kind: 'chunk-data', left } : { kind: 'chunk-size' }));
      case 'trailers':
        return this.takeTrailer();
    }
  }

  /** A request's head, passed on (its request line rewritten if LIST) once whole; one larger than MAX_HEAD makes the rest raw. */
  private takeHead(): boolean {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end === -1) {
      if (this.buf.length > MAX_HEAD) this.state = { kind: 'raw' };
      return this.buf.length > MAX_HEAD;
    }
    const raw = this.buf.subarray(0, end + 4);
    const head = raw.toString('latin1');
    this.buf = this.buf.subarray(end + 4);
    const rewritten = rewriteRequestLine(head);
    if (rewritten === head) this.out.push(raw);
    else {
      this.out.push(Buffer.from(rewritten, 'latin1'));
      this.rewrote = true;
    }
    this.state = nextState(head);
    return true;
  }

  /** A chunk's size line: the chunk's data follows, or the trailers after the last (size 0); an unreadable size makes the rest raw. */
  private takeChunkSize(): boolean {
    const eol = this.buf.indexOf('\r\n');
    if (eol === -1) return false;
    const size = parseInt(this.buf.subarray(0, eol).toString('latin1').split(';')[0]!.trim(), 16);
    this.pass(eol + 2);
    this.state = Number.isNaN(size) ? { kind: 'raw' } : size === 0 ? { kind: 'trailers' } : { kind: 'chunk-data', left: size + 2 };
    return true;
  }

  /** One trailer line; the empty line ends the request. */
  private takeTrailer(): boolean {
    const eol = this.buf.indexOf('\r\n');
    if (eol === -1) return false;
    this.pass(eol + 2);
    if (eol === 0) this.state = { kind: 'head' };
    return true;
  }

  private pass(n: number): boolean {
    this.out.push(this.buf.subarray(0, n));
    this.buf = this.buf.subarray(n);
    return true;
  }

  private passCounted(left: number, next: (left: number) => State): boolean {
    const n = Math.min(left, this.buf.length);
    this.pass(n);
    this.state = next(left - n);
    return true;
  }
}

function nextState(head: string): State {
  const headers = head.toLowerCase();
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(headers)) return { kind: 'chunk-size' };
  const len = /\r\ncontent-length:\s*(\d+)/.exec(headers);
  if (len) return Number(len[1]) > 0 ? { kind: 'body', left: Number(len[1]) } : { kind: 'head' };
  if (/\r\n(upgrade|connection):\s*upgrade/.test(headers)) return { kind: 'raw' };
  return { kind: 'head' };
}
