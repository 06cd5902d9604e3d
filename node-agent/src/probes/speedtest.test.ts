import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import pino from 'pino';
import { speedtestOutputSchema, speedtestParamsSchema, type SpeedtestParams } from '@vantage/shared-protocol';
import { createSpeedtestProbe } from './speedtest.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { makeTestPki } from './test-support/certs.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const ctx = (policy = ALLOW) => ({ signal: new AbortController().signal, policy, log });
const params = (p: Partial<SpeedtestParams> = {}): SpeedtestParams => speedtestParamsSchema.parse({ timeout_ms: 10000, ...p });
const MiB = 1024 * 1024;

/**
 * A download server: GET /<n> answers n bytes with content-length, /chunked/<n> chunked, /slow/<n> sends
 * 1 KiB every 50 ms, /redirect a 302; POST counts the bytes it receives and answers that count.
 */
function handler(received: number[]): http.RequestListener {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  return (req, res) => {
    if (req.method === 'POST') {
      let n = 0;
      req.on('data', (c: Buffer) => { n += c.length; });
      req.on('end', () => { received.push(n); res.end(String(n)); });
      return;
    }
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/1' }).end();
    const slow = req.url!.startsWith('/slow/');
    const chunked = slow || req.url!.startsWith('/chunked/');
    let left = Number(req.url!.split('/').pop());
    res.writeHead(200, { 'content-type': 'application/octet-stream', ...(chunked ? {} : { 'content-length': String(left) }) });
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        const n = Math.min(left, slow ? 1024 : chunk.length);
        left -= n;
        if (slow) { res.write(chunk.subarray(0, n)); setTimeout(pump, 50); return; }
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
      }
      if (left === 0) res.end();
    };
    pump();
  };
}

async function listen(t: Test, server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return (server.address() as AddressInfo).port;
}

t.test('download and upload over http: bytes, times and Mbps', async (t) => {
  const received: number[] = [];
  const port = await listen(t, http.createServer(handler(received)));
  const probe = createSpeedtestProbe({ max_bytes: 64 * MiB, max_duration_ms: 30_000 });
  const r = await probe.run(`http://127.0.0.1:${port}/${8 * MiB}`, params({ upload_bytes: 2 * MiB }), ctx());
  speedtestOutputSchema.parse(r.output);
  t.equal(r.success, true, r.error ?? '');
  t.equal(r.output.bytes, 8 * MiB);
  t.equal(r.output.capped, null);
  t.equal(r.output.status_code, 200);
  t.ok(r.output.ttfb_ms! > 0 && r.output.ttfb_ms! <= r.output.duration_ms!);
  const expected = (8 * MiB * 8) / (r.output.duration_ms! / 1000) / 1e6;
  // duration_ms is rounded to 0.001 ms, so on a fast loopback the rate agrees to a relative 1e-3, not absolutely.
  t.ok(Math.abs(r.output.download_mbps! - expected) / expected < 1e-3, `download_mbps ${r.output.download_mbps} = bytes × 8 / duration (${expected})`);
  t.same(received, [2 * MiB], 'the server got the upload');
  const chunked = await probe.run(`http://127.0.0.1:${port}/chunked/${3 * MiB + 17}`, params(), ctx());
  t.equal(chunked.success, true, chunked.error ?? '');
  t.equal(chunked.output.bytes, 3 * MiB + 17, 'a chunked body counts its data bytes only');
  t.equal(chunked.output.capped, null);
  t.equal(r.output.upload_bytes, 2 * MiB);
  t.ok(r.output.upload_mbps! > 0);
});

t.test('the node\'s caps bound the request: bytes, then time', async (t) => {
  const port = await listen(t, http.createServer(handler([])));
  const probe = createSpeedtestProbe({ max_bytes: 1 * MiB, max_duration_ms: 1000 });
  const big = await probe.run(`http://127.0.0.1:${port}/${100 * MiB}`, params({ max_bytes: 500 * MiB }), ctx());
  t.equal(big.success, true, big.error ?? '');
  t.equal(big.output.capped, 'bytes');
  t.equal(big.output.bytes, 1 * MiB, 'never more than the node allows, whatever was asked');
  const asked = await probe.run(`http://127.0.0.1:${port}/${4 * MiB}`, params({ max_bytes: 100_000 }), ctx());
  t.equal(asked.output.bytes, 100_000, 'a smaller max_bytes in the request applies');
  const slow = await probe.run(`http://127.0.0.1:${port}/slow/${10 * MiB}`, params(), ctx());
  t.equal(slow.success, true, slow.error ?? '');
  t.equal(slow.output.capped, 'time');
  t.ok(slow.output.bytes > 0 && slow.output.bytes < 10 * MiB);
});

t.test('https with the test CA; failures: redirect, refused, policy', async (t) => {
  const pki = await makeTestPki();
  const port = await listen(t, https.createServer({ key: pki.leaf.key, cert: pki.leaf.cert }, handler([])));
  const r = await createSpeedtestProbe({ max_bytes: 8 * MiB, max_duration_ms: 10_000, ca: pki.ca.cert }).run(`https://localhost:${port}/${MiB}`, params(), ctx());
  t.equal(r.success, true, r.error ?? '');
  t.equal(r.output.bytes, MiB);
  const untrusted = await createSpeedtestProbe().run(`https://localhost:${port}/${MiB}`, params(), ctx());
  t.equal(untrusted.error_class, 'target', 'an untrusted certificate fails');

  const plain = await listen(t, http.createServer(handler([])));
  const moved = await createSpeedtestProbe().run(`http://127.0.0.1:${plain}/redirect`, params(), ctx());
  t.equal(moved.error_class, 'target');
  t.equal(moved.output.status_code, 302);
  const gone = http.createServer();
  const gonePort = await listen(t, gone);
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  const refused = await createSpeedtestProbe().run(`http://127.0.0.1:${gonePort}/1`, params(), ctx());
  t.equal(refused.error_class, 'refused');
  const blocked = await createSpeedtestProbe().run(`http://127.0.0.1:${plain}/1`, params(), ctx(DEFAULT_POLICY));
  t.equal(blocked.error_class, 'blocked');
});
