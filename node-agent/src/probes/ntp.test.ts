import t, { type Test } from 'tap';
import pino from 'pino';
import { ntpOutputSchema, ntpParamsSchema, type NtpParams } from '@vantage/shared-protocol';
import { ntpProbe } from './ntp.js';
import { buildRequest, offsetDelay, parseHeader, readTimestamp, referenceIdText, writeTimestamp } from './ntp/packet.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { startNtpServer, type NtpServerOptions } from './test-support/ntp-server.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const params = (p: Partial<NtpParams> = {}): NtpParams => ntpParamsSchema.parse({ interval_ms: 100, timeout_ms: 1000, ...p });
const ctx = (policy = ALLOW) => ({ signal: new AbortController().signal, policy, log });

async function serve(t: Test, o: NtpServerOptions) {
  const server = await startNtpServer(o);
  t.teardown(() => server.close());
  return server;
}

t.test('timestamps round-trip and the RFC 5905 8 arithmetic', async (t) => {
  const buf = Buffer.alloc(48);
  const at = Date.UTC(2026, 10, 28, 12, 0, 0, 250.5);
  writeTimestamp(buf, 40, at);
  t.ok(Math.abs(readTimestamp(buf, 40) - at) < 0.001, 'sub-µs round trip');
  writeTimestamp(buf, 40, Date.UTC(2040, 0, 1));
  t.equal(readTimestamp(buf, 40), Date.UTC(2040, 0, 1), 'era 1 (after 2036-02-07) read back');
  // T1 = 0, server 100 ms ahead, 10 ms each way, 2 ms processing
  t.same(offsetDelay(0, 110, 112, 22), { offset_ms: 100, delay_ms: 20 });
  const req = buildRequest(at);
  t.equal(req[0], 0x23, 'LI 0, version 4, mode 3');
  t.equal(parseHeader(req)?.mode, 3);
  t.equal(referenceIdText(1, Buffer.from('GPS\0')), 'GPS');
  t.equal(referenceIdText(3, Buffer.from([192, 0, 2, 1])), '192.0.2.1');
});

t.test('a server 250 ms ahead: offset, delay and the header fields', async (t) => {
  const server = await serve(t, { offset_ms: 250, processing_ms: 5 });
  const r = await ntpProbe.run(`127.0.0.1:${server.port}`, params({ count: 3 }), ctx());
  ntpOutputSchema.parse(r.output);
  t.equal(r.success, true, r.error ?? '');
  t.equal(server.requests, 3);
  t.equal(r.output.samples_sent, 3);
  t.equal(r.output.samples_received, 3);
  t.ok(Math.abs(r.output.offset_ms! - 250) < 5, `offset ${r.output.offset_ms} ms ≈ 250`);
  t.ok(r.output.delay_ms! >= 0 && r.output.delay_ms! < 50, `delay ${r.output.delay_ms} ms excludes the 5 ms processing`);
  t.equal(r.output.stratum, 2);
  t.equal(r.output.reference_id, '198.18.0.123');
  t.equal(r.output.leap, 'none');
  t.equal(r.output.version, 4);
  t.ok(Math.abs(r.output.root_delay_ms! - 12.3) < 0.1);
  t.ok(Math.abs(r.output.root_dispersion_ms! - 45.6) < 0.1);
  t.equal(r.output.samples.length, 3);
});

t.test('a server behind: negative offset; a forged reply with the wrong origin is ignored', async (t) => {
  const server = await serve(t, { offset_ms: -1500, forge_first: true });
  const r = await ntpProbe.run(`localhost:${server.port}`, params({ count: 2 }), ctx());
  t.equal(r.success, true, r.error ?? '');
  t.ok(Math.abs(r.output.offset_ms! + 1500) < 5, `offset ${r.output.offset_ms}`);
});

t.test('kiss-o\'-death RATE stops the run', async (t) => {
  const server = await serve(t, { kiss: 'RATE' });
  const r = await ntpProbe.run(`127.0.0.1:${server.port}`, params({ count: 4 }), ctx());
  t.equal(r.success, false);
  t.equal(r.error_class, 'target');
  t.match(r.error, /kiss-o'-death RATE/);
  t.equal(server.requests, 1);
  t.equal(r.output.samples_received, 0);
});

t.test('an unsynchronized server fails with its figures', async (t) => {
  const server = await serve(t, { unsynchronized: true });
  const r = await ntpProbe.run(`127.0.0.1:${server.port}`, params({ count: 1 }), ctx());
  t.equal(r.success, false);
  t.equal(r.error_class, 'target');
  t.equal(r.output.leap, 'unsynchronized');
  t.not(r.output.offset_ms, null);
});

t.test('silence is a timeout with every sample lost', async (t) => {
  const server = await serve(t, { silent: true });
  const r = await ntpProbe.run(`127.0.0.1:${server.port}`, params({ count: 2, timeout_ms: 200 }), ctx());
  ntpOutputSchema.parse(r.output);
  t.equal(r.success, false);
  t.equal(r.error_class, 'timeout');
  t.same(r.output.samples, [{ offset_ms: null, delay_ms: null }, { offset_ms: null, delay_ms: null }]);
  t.equal(r.output.offset_ms, null);
});

t.test('the default policy refuses loopback', async (t) => {
  const r = await ntpProbe.run('127.0.0.1:123', params(), ctx(DEFAULT_POLICY));
  t.equal(r.error_class, 'blocked');
  t.equal(r.output.samples_sent, 0);
});
