/**
 * query_ms over UDP is the kernel's receive time of the reply minus the send, so a busy event
 * loop (other probes, the agent's own work) between the reply's arrival and its read is not
 * counted in it.
 */
import dgram from 'node:dgram';
import { once } from 'node:events';
import dnsPacket from 'dns-packet';
import t from 'tap';
import { dgramFd, rxStamps } from '../timestamps/kernel.js';
import { buildQuery } from './query.js';
import { udpExchange } from './udp.js';

const block = (ms: number) => { const until = performance.now() + ms; while (performance.now() < until); };

t.test('a reply read late still counts from its arrival', async (t) => {
  const probe = dgram.createSocket('udp4');
  probe.bind(0, '127.0.0.1');
  await once(probe, 'listening');
  const available = rxStamps(dgramFd(probe)) !== null;
  probe.close();
  if (!available) return t.plan(0, 'kernel timestamps unavailable here (no ioctl addon or not Linux)');

  const server = dgram.createSocket('udp4');
  t.teardown(() => server.close());
  server.on('message', (msg, from) => {
    const q = dnsPacket.decode(msg);
    const reply = dnsPacket.encode({ type: 'response', id: q.id, flags: dnsPacket.RECURSION_DESIRED, questions: q.questions, answers: [] });
    // Once sent, the reply waits in the probe's socket queue; the probe cannot read it yet.
    server.send(reply, from.port, from.address, () => block(500));
  });
  server.bind(0, '127.0.0.1');
  await once(server, 'listening');
  const exchange = () => udpExchange('127.0.0.1', 4, server.address().port, buildQuery('example.test', 'A'), 5000, new AbortController().signal);
  await exchange(); // the process's first stamped socket turns stamping on through deferred kernel work
  const got = await exchange();
  t.equal(got.ok, true);
  if (got.ok) t.ok(got.query_ms < 500, `query_ms ${got.query_ms.toFixed(3)} leaves out the 500 ms the loop was blocked`);
});
