import type { Socket } from 'node:net';
import type { SmtpReply } from '@vantage/shared-protocol';

/** Longest reply line we accept (RFC 5321 4.5.3.1.5: 512 octets including CRLF; some servers exceed it). */
const LINE_MAX = 4096;
/** Most lines in one reply (an EHLO list is some twenty). */
const REPLY_LINES_MAX = 64;

/** A reply with its separate lines' texts (EHLO keywords are lines 2..n). */
export interface ReplyLines extends SmtpReply {
  lines: string[];
}

/**
 * Reads SMTP replies (RFC 5321 4.2: `ddd-text` continuation lines, then `ddd text`) from one
 * socket at a time; `attach` moves it to the TLS socket after STARTTLS. `next()` resolves with the
 * next whole reply, and rejects when the socket ends, errs, or sends something that is not a reply.
 */
export class ReplyReader {
  private buffer = '';
  private lines: string[] = [];
  private waiting: { resolve: (r: ReplyLines) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;
  private socket: Socket | null = null;
  private readonly onData = (chunk: Buffer) => this.push(chunk.toString('latin1'));
  private readonly onEnd = () => this.fail(new Error('connection closed by the server'));
  private readonly onError = (err: Error) => this.fail(err);

  /** Read from `socket` from now on (and stop reading the previous one). */
  attach(socket: Socket): void {
    this.detach();
    this.socket = socket;
    socket.on('data', this.onData).on('end', this.onEnd).on('error', this.onError);
  }

  /** Stop reading (before a STARTTLS upgrade hands the socket to TLS). */
  detach(): void {
    this.socket?.off('data', this.onData).off('end', this.onEnd).off('error', this.onError);
    this.socket = null;
  }

  /** The next complete reply. */
  next(): Promise<ReplyLines> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.deliver();
    });
  }

  /** Fail the pending and any later read (abort, timeout). */
  fail(err: Error): void {
    this.failure ??= err;
    this.deliver();
  }

  private push(text: string): void {
    this.buffer += text;
    let at: number;
    while ((at = this.buffer.indexOf('\n')) >= 0) {
      this.lines.push(this.buffer.slice(0, at).replace(/\r$/, ''));
      this.buffer = this.buffer.slice(at + 1);
    }
    if (this.buffer.length > LINE_MAX) this.fail(new Error(`reply line longer than ${LINE_MAX} bytes`));
    this.deliver();
  }

  /** Hand a whole reply to the waiting reader, if both are there. */
  private deliver(): void {
    if (!this.waiting) return;
    const end = this.lines.findIndex((l) => /^\d{3}( |$)/.test(l));
    const malformed = this.lines.slice(0, end < 0 ? this.lines.length : end + 1).find((l) => !/^\d{3}([ -]|$)/.test(l));
    let error = this.failure;
    if (malformed !== undefined) error = new Error(`not an SMTP reply: ${JSON.stringify(malformed.slice(0, 80))}`);
    else if (end < 0 && this.lines.length > REPLY_LINES_MAX) error = new Error(`reply longer than ${REPLY_LINES_MAX} lines`);
    const code = end >= 0 ? Number(this.lines[end]!.slice(0, 3)) : 0;
    if (end >= 0 && malformed === undefined && (code < 200 || code > 599)) error = new Error(`reply code ${code} is outside 200-599`);
    else if (end >= 0 && malformed === undefined) {
      const taken = this.lines.splice(0, end + 1);
      const { resolve } = this.waiting;
      this.waiting = null;
      const texts = taken.map((l) => l.slice(4));
      resolve({ code, text: texts.join('\n').slice(0, 2000), lines: texts });
    }
    if (this.waiting && error) {
      const { reject } = this.waiting;
      this.waiting = null;
      reject(error);
    }
  }
}
