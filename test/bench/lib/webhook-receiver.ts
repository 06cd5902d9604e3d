/**
 * A webhook receiver for test/bench/delivery-bench.ts, run as its own process (forked) so it does
 * not share the event loop with the delivery worker it measures. Answers every POST with 204,
 * records for each the delay from the event's `timestamp` (the publish time) to its arrival
 * (epoch ms, sub-millisecond clock) and the webhook-id. IPC: `{ port }` once listening; on
 * `{ cmd: 'stats' }` answers `{ count, unique, delays_ms }`; on `{ cmd: 'reset' }` forgets and answers `{ ok: true }`.
 */
import { createServer } from 'node:http';

let delays: number[] = [];
let ids = new Set<string>();
let count = 0;
const now = () => performance.timeOrigin + performance.now();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    count++;
    ids.add(String(req.headers['webhook-id']));
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      delays.push(at - Date.parse(body.timestamp));
    } catch { /* not an event */ }
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'stats') process.send!({ count, unique: ids.size, delays_ms: delays });
  if (m.cmd === 'reset') {
    delays = []; ids = new Set(); count = 0;
    process.send!({ ok: true });
  }
  if (m.cmd === 'exit') server.close(() => process.exit(0));
});
