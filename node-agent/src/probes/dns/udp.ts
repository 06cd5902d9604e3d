import dgram from 'node:dgram';
import { dgramFd, receiveTime, rxStamps, type RxStamps } from '../timestamps/kernel.js';
import { failureOf, settleOnce, type ExchangeResult } from './exchange.js';
import { matchReply, type DnsQuery } from './query.js';

/**
 * Send `query` over UDP to `address:port` (RFC 1035 4.2.1) and wait up to `timeout_ms` for the
 * matching reply. The socket is connected, so the kernel drops datagrams from other sources and an
 * ICMP port unreachable surfaces as ECONNREFUSED ('refused'). Datagrams that do not match the id
 * and question (matchReply) are ignored and the wait goes on (RFC 5452 9.1). Never rejects.
 * query_ms runs from hrtime just before send() (which reaches sendto(2) synchronously on a
 * connected socket) to the kernel's receive timestamp of the reply (timestamps/kernel.ts), or
 * to hrtime at the read when the kernel's stamp is unavailable.
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
    let sent_ns = 0n;
    let stamps: RxStamps | null = null;
    socket.on('error', (err) => finish(failureOf(err)));
    socket.on('message', (msg) => {
      const read_ns = process.hrtime.bigint();
      const kernel_ns = stamps?.last() ?? null; // this datagram's: still inside its read callback
      const reply = matchReply(query, msg);
      if (reply) finish({ ok: true, reply, query_ms: Number(receiveTime(kernel_ns, sent_ns, read_ns) - sent_ns) / 1e6 });
    });
    socket.connect(port, address, () => {
      if (closed) return;
      stamps = rxStamps(dgramFd(socket)); // before sending, so the reply is stamped
      sent_ns = process.hrtime.bigint();
      socket.send(query.wire, (err) => { if (err) finish(failureOf(err)); });
    });
  });
}
