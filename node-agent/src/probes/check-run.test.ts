import dgram from 'node:dgram';
import net from 'node:net';
import t from 'tap';
import pino from 'pino';
import { dnsParamsSchema, tcpParamsSchema, type CheckSpec, type TcpOutput } from '@vantage/shared-protocol';
import { runCheckWith, type ProbeMap } from './check-run.js';
import { createDnsProbe } from './dns.js';
import { ProbeInputError } from './input-error.js';
import { tcpProbe } from './tcp.js';
import type { TargetPolicy } from './target-policy.js';
import type { Probe } from './types.js';

// The component under test is the runner: the probes below are real Probe implementations with
// chosen behaviour (throwing, hanging, honouring the signal), plus the real tcp probe.
const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const check = (target = '127.0.0.1:1'): CheckSpec => ({ type: 'tcp', target, params: tcpParamsSchema.parse({}) });
const partial: TcpOutput = { resolved_address: '127.0.0.1', port: 1, connect_ms: null, state: 'timeout' };
const tcpLike = (run: Probe<'tcp'>['run']): ProbeMap => ({ tcp: { type: 'tcp', run } });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

t.test('a probe outcome passes through with times', async (t) => {
  const r = await runCheckWith(tcpLike(async () => ({ success: true, error: null, error_class: null, output: { ...partial, state: 'open', connect_ms: 0.2 } })), check(), { timeout_ms: 5000, policy: ALLOW, log });
  t.match(r, { type: 'tcp', success: true, error: null, error_class: null, output: { state: 'open' } });
  t.match(r.started_at, ISO);
  t.match(r.finished_at, ISO);
  t.ok(r.finished_at >= r.started_at);
});

t.test('a throw becomes internal with null output', async (t) => {
  const r = await runCheckWith(tcpLike(async () => { throw new Error('boom'); }), check(), { timeout_ms: 5000, policy: ALLOW, log });
  t.match(r, { success: false, error: 'boom', error_class: 'internal', output: null });
  const sync = await runCheckWith(tcpLike(() => { throw new TypeError('sync boom'); }), check(), { timeout_ms: 5000, policy: ALLOW, log });
  t.match(sync, { success: false, error: 'sync boom', error_class: 'internal', output: null });
});

t.test('a ProbeInputError becomes rejected', async (t) => {
  const r = await runCheckWith(tcpLike(async () => { throw new ProbeInputError('no port'); }), check(), { timeout_ms: 5000, policy: ALLOW, log });
  t.match(r, { success: false, error: 'no port', error_class: 'rejected', output: null });
});

t.test('a missing probe is internal', async (t) => {
  const r = await runCheckWith({}, check(), { timeout_ms: 5000, policy: ALLOW, log });
  t.match(r, { success: false, error_class: 'internal', output: null });
});

const honouring = tcpLike((_target, _params, ctx) => new Promise((resolve) => {
  ctx.signal.addEventListener('abort', () => resolve({ success: false, error: 'stopped', error_class: 'target', output: partial }), { once: true });
}));

t.test('the timeout aborts the probe and keeps its partial output', async (t) => {
  const r = await runCheckWith(honouring, check(), { timeout_ms: 50, policy: ALLOW, log });
  t.match(r, { success: false, error_class: 'timeout', output: partial });
  t.match(r.error, /timed out after 50 ms/);
});

t.test('an external abort is cancelled', async (t) => {
  const ctrl = new AbortController();
  const pending = runCheckWith(honouring, check(), { timeout_ms: 60_000, signal: ctrl.signal, policy: ALLOW, log });
  ctrl.abort();
  const r = await pending;
  t.match(r, { success: false, error_class: 'cancelled', output: partial });
  const pre = await runCheckWith(honouring, check(), { timeout_ms: 60_000, signal: ctrl.signal, policy: ALLOW, log });
  t.match(pre, { success: false, error_class: 'cancelled', output: null }, 'already aborted: the probe is not started');
});

t.test('a probe that ignores the abort is abandoned after the grace period', async (t) => {
  const deaf = tcpLike(() => new Promise(() => {}));
  const r = await runCheckWith(deaf, check(), { timeout_ms: 50, grace_ms: 50, policy: ALLOW, log });
  t.match(r, { success: false, error_class: 'timeout', output: null });
});

t.test('the real tcp probe through the runner', async (t) => {
  const server = net.createServer((c) => c.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => server.close());
  const port = (server.address() as net.AddressInfo).port;
  const ok = await runCheckWith({ tcp: tcpProbe }, check(`127.0.0.1:${port}`), { timeout_ms: 5000, policy: ALLOW, log });
  t.match(ok, { success: true, error_class: null, output: { state: 'open', port } });
  const blocked = await runCheckWith({ tcp: tcpProbe }, check(`127.0.0.1:${port}`), { timeout_ms: 5000, policy: { allow_private: false, allow_cidrs: [] }, log });
  t.match(blocked, { success: false, error_class: 'blocked' });
  const noPort = await runCheckWith({ tcp: tcpProbe }, check('127.0.0.1'), { timeout_ms: 5000, policy: ALLOW, log });
  t.match(noPort, { success: false, error_class: 'rejected', output: null });
});

// A silent target must read the same on every node: the probe's own timeout (same timeout_ms)
// reports what it waited for, and the runner's bound only catches a probe that overruns. When
// both fired at the same moment, one node said "no reply from … within 1000 ms" and another
// "check timed out after 1000 ms".
t.test('a silent DNS server gets the DNS probe\'s wording on every run', async (t) => {
  const silent = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
  t.teardown(() => silent.close());
  const { port } = silent.address();
  const spec: CheckSpec = { type: 'dns', target: 'example.test', params: dnsParamsSchema.parse({ server: `127.0.0.1:${port}`, timeout_ms: 1000 }) };
  const runs = await Promise.all(Array.from({ length: 8 }, () => runCheckWith({ dns: createDnsProbe() }, spec, { timeout_ms: 1000, policy: ALLOW, log })));
  for (const r of runs) t.match(r, { success: false, error_class: 'timeout', error: `no reply from 127.0.0.1:${port} within 1000 ms` });
});
