import type net from 'node:net';
import { joinRawHeaders } from './headers.js';
import { ResponseParser } from './response-parser.js';

/** What one request got back; `t_first`/`t_headers`/`t_end` are performance.now() ms. */
export interface Sent {
  status_code: number;
  headers: Record<string, string>;
  /** The first response byte, stamped in the read's callback (blackbox's GotFirstResponseByte). */
  t_first: number;
  t_headers: number;
  /** The last body byte read (or the cut at the cap). */
  t_end: number;
  /** Body bytes received (framing removed), counted up to the cut. */
  response_size: number;
  body_truncated: boolean;
  /** The body bytes up to the cap, when the caller asked to keep them; else null. */
  body: Buffer[] | null;
}

/** Rejected when the request failed before or while the response came; `partial` holds what did arrive. */
export class SendError extends Error {
  constructor(override readonly cause: unknown, readonly partial: Sent | null) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SendError';
  }
}

/**
 * One response read as it arrives: give `push` to the connection as its read callback (connect.ts
 * `on_read`) before it is dialled, then call `exchange`. Each read is parsed at once, in the read's
 * own callback: the first byte, the head and the last body byte are stamped there, not on a
 * later tick. The body is counted and dropped (copied up to the cap when `keep_body`: monitor
 * assertions read it); past `body_cap_bytes` reading stops and the result is `body_truncated`.
 */
export class ResponseReader {
  private sent: Sent | null = null;
  private t_first: number | null = null;
  private settled = false;
  private readonly parser: ResponseParser;
  private resolve!: (sent: Sent) => void;
  private reject!: (err: SendError) => void;
  private readonly result = new Promise<Sent>((resolve, reject) => { this.resolve = resolve; this.reject = reject; });

  constructor(head_request: boolean, private readonly body_cap_bytes: number, private readonly keep_body: boolean) {
    this.parser = new ResponseParser({
      onHead: (status_code, raw) => {
        const t = performance.now();
        this.sent = { status_code, headers: joinRawHeaders(raw), t_first: this.t_first ?? t, t_headers: t, t_end: t, response_size: 0, body_truncated: false, body: keep_body ? [] : null };
      },
      onBody: (buf, start, end) => this.body(buf, start, end),
    }, head_request);
    this.result.catch(() => {}); // rejections are read through exchange(); none goes unhandled before
  }

  /** The connection's read callback: `chunk` is valid only during the call. */
  readonly push = (chunk: Buffer): void => {
    if (this.settled) return;
    this.t_first ??= performance.now();
    try {
      this.parser.feed(chunk);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (this.parser.done || this.sent?.body_truncated) this.complete();
  };

  /**
   * Write `request` on the ready `socket` and resolve the response once its last body byte (or the
   * cap) was read. The caller destroys the socket afterwards.
   * @throws SendError on a socket error, a malformed or cut-short response (its cause an HttpProtocolError), or an abort of `signal`
   */
  exchange(socket: net.Socket, request: Buffer, signal: AbortSignal): Promise<Sent> {
    const onAbort = () => this.fail(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (err) => this.fail(err));
    socket.on('end', () => this.ended());
    socket.on('close', () => this.ended());
    socket.write(request);
    return this.result.finally(() => signal.removeEventListener('abort', onAbort));
  }

  private body(buf: Buffer, start: number, end: number): boolean {
    const sent = this.sent!;
    const before = sent.response_size;
    sent.response_size += end - start;
    // Copied: a plain connection's read buffer is reused by the next read.
    if (sent.body && before < this.body_cap_bytes) sent.body.push(Buffer.from(buf.subarray(start, Math.min(end, start + this.body_cap_bytes - before))));
    if (sent.response_size <= this.body_cap_bytes) return true;
    sent.body_truncated = true;
    return false;
  }

  /** The peer closed: complete for a close-delimited body, else the response was cut short. */
  private ended(): void {
    if (this.settled) return;
    try {
      this.parser.end();
    } catch (err) {
      this.fail(err);
      return;
    }
    this.complete();
  }

  private complete(): void {
    if (this.settled) return;
    this.settled = true;
    this.sent!.t_end = performance.now();
    this.resolve(this.sent!);
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(new SendError(err, this.sent));
  }
}
