/**
 * Kernel receive timestamps: which stamp a reply keeps, and that a datagram's stamp is the
 * kernel's (taken when it arrived), not the time the event loop got round to reading it.
 */
import dgram from 'node:dgram';
import { once } from 'node:events';
import t from 'tap';
import { dgramFd, receiveTime, rxStamps } from './kernel.js';

/** Keep the thread (and so the event loop) busy for `ms`. */
const block = (ms: number) => { const until = performance.now() + ms; while (performance.now() < until); };

t.test('receiveTime keeps a plausible kernel stamp, else the read time', async (t) => {
  const sent = 1_000_000n;
  const read = 9_000_000n;
  const cases: [string, bigint | null, bigint][] = [
    ['no kernel stamp', null, read],
    ['between send and read', 2_000_000n, 2_000_000n],
    ['a hair before the send (calibration error): clamped', sent - 5_000n, sent],
    ['a hair after the read: clamped', read + 5_000n, read],
    ['long before the send (a stale or mis-mapped stamp)', sent - 1_000_000n, read],
    ['long after the read', read + 1_000_000n, read],
  ];
  for (const [name, kernel, want] of cases) t.equal(receiveTime(kernel, sent, read), want, name);
});

t.test('a datagram keeps the time it arrived while the event loop was busy', async (t) => {
  const rx = dgram.createSocket('udp4');
  const tx = dgram.createSocket('udp4');
  t.teardown(() => { rx.close(); tx.close(); });
  rx.bind(0, '127.0.0.1');
  await once(rx, 'listening');
  const stamps = rxStamps(dgramFd(rx));
  if (!stamps) return t.plan(0, 'kernel timestamps unavailable here (no ioctl addon or not Linux)');
  tx.connect(rx.address().port, '127.0.0.1');
  await once(tx, 'connect');
  /** Send one datagram, keep the loop busy `busy_ms`, then read its stamp and the read time. */
  const exchange = async (busy_ms: number) => {
    const got = once(rx, 'message').then(() => ({ kernel: stamps.last(), read: process.hrtime.bigint() }));
    const sent = process.hrtime.bigint();
    tx.send('x'); // connected: sendto(2) runs now, and loopback delivers within it
    block(busy_ms);
    return { sent, ...(await got) };
  };
  // Stamping is switched on by deferred kernel work (net_enable_timestamp): datagrams arriving
  // before it runs carry no stamp, and SIOCGSTAMPNS then answers with the time of the call. In a
  // fresh process that window was seen to cover the first datagram, so wait until stamps are on.
  let on = false;
  for (let i = 0; i < 200 && !on; i++) {
    const w = await exchange(20);
    on = w.kernel !== null && w.kernel < w.sent + 20_000_000n;
    if (!on) await new Promise((r) => setTimeout(r, 25));
  }
  t.ok(on, 'the kernel stamps datagrams within 200 tries');
  const { sent, kernel, read } = await exchange(300);
  t.ok(kernel !== null, 'a stamp was read');
  t.ok(read - sent >= 300_000_000n, 'the read came after the busy spell');
  t.ok(kernel! >= sent - 20_000n && kernel! < sent + 300_000_000n,
    `the stamp is from before the busy spell ended (stamp − send: ${kernel === null ? 'none' : Number(kernel - sent) / 1e6} ms)`);
});
