/**
 * The shared ICMP channel times an answer with the kernel's receive timestamp, so a busy event
 * loop between the answer's arrival and its read is not counted in rtt_ms (needs root for the raw
 * socket; skipped otherwise).
 */
import dgram from 'node:dgram';
import { once } from 'node:events';
import t from 'tap';
import { icmpChannel } from './channel.js';

const block = (ms: number) => { const until = performance.now() + ms; while (performance.now() < until); };

t.test('a port unreachable read late still counts from its arrival', async (t) => {
  let lease;
  try {
    lease = icmpChannel(4).lease();
  } catch (err) {
    return t.plan(0, `no raw ICMP socket: ${(err as Error).message}`);
  }
  t.teardown(() => lease.release());
  const udp = dgram.createSocket('udp4');
  t.teardown(() => udp.close());
  udp.bind(0, '127.0.0.1');
  await once(udp, 'listening');
  // A port nobody listens on: the kernel answers with ICMP port unreachable (no rate limit on loopback).
  const closed = dgram.createSocket('udp4');
  closed.bind(0, '127.0.0.1');
  await once(closed, 'listening');
  const dst_port = closed.address().port;
  closed.close();
  udp.on('error', () => {}); // the connected socket also hears the refusal (ECONNREFUSED)
  udp.connect(dst_port, '127.0.0.1');
  await once(udp, 'connect');
  const result = await lease.udp('127.0.0.1', udp.address().port, dst_port, 5000, new AbortController().signal, (mark) => {
    mark();
    udp.send('probe'); // connected: sendto(2) now; the answer is queued on the raw socket within it
    block(500);
  });
  t.equal(result.status, 'unreachable');
  t.equal(result.port_unreachable, true);
  t.ok(result.rtt_ms !== null && result.rtt_ms < 500, `rtt_ms ${result.rtt_ms} leaves out the 500 ms the loop was blocked`);
});
