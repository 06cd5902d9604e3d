import net from 'node:net';
import t from 'tap';
import dnsPacket from 'dns-packet';
import { createFramer, frame, tcpExchange } from './tcp.js';
import { buildQuery } from './query.js';

t.test('framing splits a stream at any chunk boundary (RFC 1035 4.2.2)', async (t) => {
  const messages = [Buffer.from('first'), Buffer.alloc(0), Buffer.alloc(300, 7)];
  const stream = Buffer.concat(messages.map(frame));
  for (let size = 1; size <= stream.length; size += 13) {
    const framer = createFramer();
    const got: Buffer[] = [];
    for (let i = 0; i < stream.length; i += size) got.push(...framer(stream.subarray(i, i + size)));
    t.same(got.map((b) => b.toString('hex')), messages.map((b) => b.toString('hex')), `chunks of ${size}`);
  }
  t.throws(() => frame(Buffer.alloc(65536)), RangeError);
});

t.test('tcpExchange skips a mismatched message and reads one split across segments', async (t) => {
  const server = net.createServer((socket) => {
    socket.once('data', (chunk) => {
      const query = dnsPacket.decode(chunk.subarray(2));
      const base = { type: 'response' as const, questions: query.questions, answers: [{ name: 'a.test', type: 'A' as const, ttl: 5, data: '192.0.2.7' }] };
      const wrong = dnsPacket.streamEncode({ ...base, id: (query.id! + 1) & 0xffff });
      const right = dnsPacket.streamEncode({ ...base, id: query.id });
      socket.write(Buffer.concat([wrong, right.subarray(0, 5)]));
      setImmediate(() => socket.end(right.subarray(5)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => server.close());
  const port = (server.address() as net.AddressInfo).port;
  const r = await tcpExchange('127.0.0.1', port, buildQuery('a.test', 'A'), 5000, new AbortController().signal);
  t.equal(r.ok, true);
  if (r.ok) t.same(r.reply.answers?.map((a) => (a as { data: string }).data), ['192.0.2.7']);

  const closer = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => closer.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => closer.close());
  const closed = await tcpExchange('127.0.0.1', (closer.address() as net.AddressInfo).port, buildQuery('a.test', 'A'), 5000, new AbortController().signal);
  t.same(closed.ok ? null : closed.failure, 'error', 'closed without a reply');
});
