import dgram from 'node:dgram';
import { failureOf, settleOnce, type ExchangeResult } from './exchange.js';
import { matchReply, type DnsQuery } from './query.js';

/**
 * Send `query` over UDP to `address:port` (RFC 1035 4.2.1) and wait up to `timeout_ms` for the
 * matching reply. The socket is connected, so the kernel drops datagrams from other sources and an
 * ICMP port unreachable surfaces as ECONNREFUSED ('refused'). Datagrams that do not match the id
 * and question (matchReply) are ignored and the wait goes on (RFC 5452 9.1). Never rejects.
 */
export function udpExchange(address: string, family: 4 | 6, port: number, query: DnsQuery, timeout_ms: number, signal: AbortSignal): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
    let closed = false;
    const finish = settleOnce(timeout_ms, signal, () => {
      closed = true;
      socket.removeAllListeners('message');
      socket.on('error', () => {});
      try { socket.close(); } catch { /* already closed */ }
    }, resolve);
    let sent_at = 0;
    socket.on('error', (err) => finish(failureOf(err)));
    socket.on('message', (msg) => {
      const received_at = performance.now();
      const reply = matchReply(query, msg);
      if (reply) finish({ ok: true, reply, query_ms: received_at - sent_at });
    });
    socket.connect(port, address, () => {
      if (closed) return;
      sent_at = performance.now();
      socket.send(query.wire, (err) => { if (err) finish(failureOf(err)); });
    });
  });
}
