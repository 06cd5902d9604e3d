import net from 'node:net';
import { failureOf, settleOnce, type ExchangeResult } from './exchange.js';
import { matchReply, type DnsQuery } from './query.js';

/** Largest DNS message over TCP: the 2-byte length prefix caps it at 65535 bytes (RFC 1035 4.2.2). */
const MAX_MESSAGE = 65535;

/**
 * Split a TCP byte stream into DNS messages, each preceded by a 2-byte big-endian length
 * (RFC 1035 4.2.2, RFC 7766 8). Feed chunks as they arrive; returns the complete messages so far
 * and keeps the remainder for the next call.
 */
export function createFramer(): (chunk: Buffer) => Buffer[] {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    const messages: Buffer[] = [];
    while (pending.length >= 2) {
      const length = pending.readUInt16BE(0);
      if (pending.length < 2 + length) break;
      messages.push(pending.subarray(2, 2 + length));
      pending = pending.subarray(2 + length);
    }
    return messages;
  };
}

/** Prefix a DNS message with its 2-byte length for TCP (RFC 1035 4.2.2). */
export function frame(wire: Buffer): Buffer {
  if (wire.length > MAX_MESSAGE) throw new RangeError(`DNS message of ${wire.length} bytes exceeds ${MAX_MESSAGE}`);
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(wire.length, 0);
  return Buffer.concat([prefix, wire]);
}

/**
 * Send `query` over TCP to `address:port` and wait up to `timeout_ms` (connect included) for the
 * matching reply. `query_ms` runs from the connect call to the reply, like dig's TCP query time.
 * Messages that do not match the query are skipped. A connection closed before the reply is an
 * 'error' ('refused' when the server reset it). Never rejects.
 */
export function tcpExchange(address: string, port: number, query: DnsQuery, timeout_ms: number, signal: AbortSignal): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    const started_at = performance.now();
    const socket = net.connect({ host: address, port, noDelay: true });
    const finish = settleOnce(timeout_ms, signal, () => {
      socket.removeAllListeners('data');
      socket.removeAllListeners('end');
      socket.on('error', () => {});
      socket.destroy();
    }, resolve);
    const framer = createFramer();
    socket.on('error', (err) => finish(failureOf(err)));
    socket.on('connect', () => socket.write(frame(query.wire)));
    socket.on('data', (chunk: Buffer) => {
      const received_at = performance.now();
      for (const message of framer(chunk)) {
        const reply = matchReply(query, message);
        if (reply) {
          finish({ ok: true, reply, query_ms: received_at - started_at });
          return;
        }
      }
    });
    socket.on('end', () => finish({ ok: false, failure: 'error', detail: 'server closed the TCP connection without a reply' }));
  });
}
