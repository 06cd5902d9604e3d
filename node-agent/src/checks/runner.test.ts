/**
 * The monitor check runner's own classes (as the probe runner's): a throw, an unusable input, the
 * run's timeout, cancellation, and a check that does not stop.
 */
import dgram from 'node:dgram';
import t from 'tap';
import { checkResultSchema, dnsMonitorConfigSchema, httpMonitorConfigSchema, newId } from '@vantage/shared-protocol';
import { createDnsCheck } from './dns.js';
import { ProbeInputError } from '../probes/input-error.js';
import { silentLogger } from '../probes/test-support/logger.js';
import { runMonitorCheckWith } from './runner.js';
import type { Check, CheckMap } from './types.js';
import { ALLOW_LOOPBACK } from './test-support/run.js';

const run = { monitor_id: newId('monitor'), check: { type: 'http' as const, target: 'http://127.0.0.1/', config: httpMonitorConfigSchema.parse({}) } };
const opts = (timeout_ms = 5000, signal?: AbortSignal) => ({ timeout_ms, signal, policy: ALLOW_LOOPBACK, log: silentLogger(), grace_ms: 200 });
const withCheck = (c: Check<'http'>['run']): Partial<CheckMap> => ({ http: { type: 'http', run: c } });

t.test('classes set by the runner', async (t) => {
  const at = '2026-11-22T10:00:00.000Z';
  const thrown = await runMonitorCheckWith(withCheck(async () => { throw new Error('boom'); }), run, at, opts());
  checkResultSchema.parse(thrown);
  t.match(thrown, { success: false, error: 'boom', error_class: 'internal', output: null, assertions: [], scheduled_at: at, monitor_id: run.monitor_id });
  const input = await runMonitorCheckWith(withCheck(async () => { throw new ProbeInputError('no port'); }), run, at, opts());
  t.match(input, { error_class: 'rejected', error: 'no port' });
  const stuck = await runMonitorCheckWith(withCheck(() => new Promise(() => {})), run, at, opts(50));
  t.match(stuck, { error_class: 'timeout', output: null });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const cancelled = await runMonitorCheckWith(withCheck((_t, _c, ctx) => new Promise((resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('x'))))), run, at, opts(5000, controller.signal));
  t.match(cancelled, { error_class: 'cancelled' });
  const missing = await runMonitorCheckWith({}, run, at, opts());
  t.match(missing, { error_class: 'internal', error: 'no check for type http' });
});

// A silent target must read the same on every node and every round: the check's own timeout (same
// timeout_ms as the run's budget) says what it waited for, and the runner's bound only catches a
// check that overruns. With both timers at the same moment the runner's, set first, won: the round
// said "check timed out after 1000 ms" instead of what the check waited for.
t.test('a silent DNS server gets the DNS check\'s wording, not the runner\'s, when the budgets are equal', async (t) => {
  const silent = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
  t.teardown(() => silent.close());
  const { port } = silent.address();
  const dnsRun = { monitor_id: run.monitor_id, check: { type: 'dns' as const, target: 'example.test', config: dnsMonitorConfigSchema.parse({ server: `127.0.0.1:${port}`, timeout_ms: 1000 }) } };
  const at = '2026-11-22T10:00:00.000Z';
  const runs = await Promise.all(Array.from({ length: 8 }, () => runMonitorCheckWith({ dns: createDnsCheck() }, dnsRun, at, opts(1000))));
  for (const r of runs) t.match(r, { success: false, error_class: 'timeout', error: `no reply from 127.0.0.1:${port} within 1000 ms` });
});

t.test('a check that overruns its own timeout is stopped by the runner with one wording', async (t) => {
  const at = '2026-11-22T10:00:00.000Z';
  const overrun = await runMonitorCheckWith(withCheck((_t, _c, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('socket closed'))))), run, at, opts(100));
  t.match(overrun, { success: false, error_class: 'timeout', error: 'check timed out after 100 ms', output: null });
});
