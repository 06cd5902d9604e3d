/**
 * An incremental HTTP/1.1 response parser for the probe's own exchange (RFC 9112): status line and
 * header fields, then the body framed by RFC 9112 section 6.3 (no body for HEAD, 1xx, 204 and 304;
 * Transfer-Encoding chunked; Content-Length; else read until the connection closes). Interim 1xx
 * answers (100 Continue, 103 Early Hints) are skipped. Body bytes are handed out as ranges of the
 * buffer fed, never copied: the probe counts them and copies only what a check keeps.
 */

/** A response the parser cannot accept (malformed or oversized head, bad framing, cut short). */
export class HttpProtocolError extends Error {
  /** `HTTP_PARSE` for malformed input, `HTTP_INCOMPLETE` for a response cut short by the peer. */
  constructor(message: string, readonly code: 'HTTP_PARSE' | 'HTTP_INCOMPLETE') {
    super(message);
    this.name = 'HttpProtocolError';
  }
}

/** Largest response head accepted, bytes (status line and header fields; undici's default is 16 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;

const CR = 0x0d;
const LF = 0x0a;

/** The parser's callbacks. */
export interface ResponseHandlers {
  /** The final response's status and header fields (`[name, value, …]`, names as sent). */
  onHead(status_code: number, raw_headers: string[]): void;
  /** Body bytes `buf[start, end)`, framing removed; valid only during the call. Return false to stop parsing. */
  onBody(buf: Buffer, start: number, end: number): boolean;
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-data-end' | 'trailers' | 'until-close' | 'done';

/** Parses one response, fed as it arrives; `done` once the last body byte was seen. */
export class ResponseParser {
  private state: State = 'head';
  private head: Buffer[] = [];
  private headBytes = 0;
  /** Body bytes (or chunk bytes) still expected in 'length' / 'chunk-data'. */
  private remaining = 0;
  /** A chunk-size or trailer line split across reads. */
  private line = '';
  /** The last head byte seen was a LF (or a CR after one): the next LF ends the head. */
  private afterLf = false;

  /** `head_request`: the request was HEAD, so the response has no body whatever its fields say. */
  constructor(private readonly handlers: ResponseHandlers, private readonly head_request: boolean) {}

  /** True once the whole response was read. */
  get done(): boolean {
    return this.state === 'done';
  }

  /** Feed the next bytes read. @throws HttpProtocolError on malformed input */
  feed(buf: Buffer): void {
    let i = 0;
    while (i < buf.length && this.state !== 'done') {
      switch (this.state) {
        case 'head': i = this.readHead(buf, i); break;
        case 'length':
        case 'chunk-data': {
          const end = Math.min(buf.length, i + this.remaining);
          this.remaining -= end - i;
          if (this.remaining === 0) this.state = this.state === 'length' ? 'done' : 'chunk-data-end';
          if (!this.handlers.onBody(buf, i, end)) return;
          i = end;
          break;
        }
        case 'until-close':
          if (!this.handlers.onBody(buf, i, buf.length)) return;
          i = buf.length;
          break;
        default: i = this.readLine(buf, i);
      }
    }
  }

  /** The connection closed: a close-delimited body ends here. @throws HttpProtocolError when the response was cut short */
  end(): void {
    if (this.state === 'until-close') this.state = 'done';
    if (this.state !== 'done') throw new HttpProtocolError('connection closed before the response was complete', 'HTTP_INCOMPLETE');
  }

  /** Collect head bytes up to the blank line; then parse it and choose the body's framing. */
  private readHead(buf: Buffer, from: number): number {
    let blank = -1;
    for (let i = from; i < buf.length; i++) {
      const b = buf[i];
      // After a LF, a LF (optionally after a CR) ends the head: CRLF CRLF, or bare LF LF.
      if (b === LF) {
        if (this.afterLf) { blank = i + 1; break; }
        this.afterLf = true;
      } else if (b !== CR) this.afterLf = false;
    }
    const upto = blank === -1 ? buf.length : blank;
    this.headBytes += upto - from;
    if (this.headBytes > MAX_HEAD_BYTES) throw new HttpProtocolError(`response head larger than ${MAX_HEAD_BYTES} bytes`, 'HTTP_PARSE');
    this.head.push(Buffer.from(buf.subarray(from, upto))); // copied: the read buffer is reused
    if (blank === -1) return buf.length;
    const text = Buffer.concat(this.head).toString('latin1');
    this.head = [];
    this.headBytes = 0;
    this.afterLf = false;
    const { status_code, raw } = parseHead(text);
    if (status_code >= 100 && status_code < 200 && status_code !== 101) return upto; // interim: the next head follows
    this.handlers.onHead(status_code, raw);
    this.state = this.framing(status_code, raw);
    return upto;
  }

  /** RFC 9112 section 6.3: how the body of this response is delimited. */
  private framing(status: number, raw: string[]): State {
    if (this.head_request || status < 200 || status === 204 || status === 304) return 'done';
    let te: string | null = null;
    let cl: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (name === 'transfer-encoding') te = te === null ? raw[i + 1]! : `${te}, ${raw[i + 1]}`;
      else if (name === 'content-length') cl = cl === null ? raw[i + 1]! : `${cl}, ${raw[i + 1]}`;
    }
    if (te !== null) return te.split(',').at(-1)!.trim().toLowerCase() === 'chunked' ? 'chunk-size' : 'until-close';
    if (cl === null) return 'until-close';
    // A list of identical values is one length (RFC 9110 section 8.6); anything else is refused.
    const values = new Set(cl.split(',').map((v) => v.trim()));
    const [only] = values;
    if (values.size !== 1 || !/^\d{1,15}$/.test(only!)) throw new HttpProtocolError(`invalid content-length: ${cl.slice(0, 100)}`, 'HTTP_PARSE');
    this.remaining = Number(only);
    return this.remaining === 0 ? 'done' : 'length';
  }

  /** Chunk-size lines, the CRLF after chunk data and trailer fields (RFC 9112 section 7.1). */
  private readLine(buf: Buffer, from: number): number {
    const lf = buf.indexOf(LF, from);
    const upto = lf === -1 ? buf.length : lf;
    this.line += buf.toString('latin1', from, upto);
    if (this.line.length > MAX_HEAD_BYTES) throw new HttpProtocolError('chunk framing line too long', 'HTTP_PARSE');
    if (lf === -1) return buf.length;
    const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
    this.line = '';
    if (this.state === 'chunk-data-end') {
      if (line !== '') throw new HttpProtocolError('chunk data not followed by CRLF', 'HTTP_PARSE');
      this.state = 'chunk-size';
    } else if (this.state === 'chunk-size') {
      const size = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/.exec(line);
      if (!size) throw new HttpProtocolError(`invalid chunk size line: ${line.slice(0, 100)}`, 'HTTP_PARSE');
      this.remaining = parseInt(size[1]!, 16);
      this.state = this.remaining === 0 ? 'trailers' : 'chunk-data';
    } else if (line === '') this.state = 'done'; // the blank line after the trailer fields
    return lf + 1;
  }
}

/** Parse a head (status line and fields, CRLF or LF line ends; values decoded as UTF-8). @throws HttpProtocolError */
function parseHead(text: string): { status_code: number; raw: string[] } {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const status = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0]!);
  if (!status) throw new HttpProtocolError(`invalid status line: ${lines[0]!.slice(0, 100)}`, 'HTTP_PARSE');
  const raw: string[] = [];
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    // Obsolete line folding and fields without a name are refused (RFC 9112 section 5.2).
    if (colon <= 0 || /^[ \t]/.test(line) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(line.slice(0, colon))) {
      throw new HttpProtocolError(`invalid header field: ${line.slice(0, 100)}`, 'HTTP_PARSE');
    }
    raw.push(line.slice(0, colon), Buffer.from(line.slice(colon + 1).trim(), 'latin1').toString('utf8'));
  }
  return { status_code: Number(status[1]), raw };
}
