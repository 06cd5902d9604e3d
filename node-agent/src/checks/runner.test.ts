/**
 * The monitor check runner's own classes (as the probe runner's): a throw, an unusable input, the
 * run's timeout, cancellation, and a check that does not stop.
 */
import t from 'tap';
import { checkResultSchema, httpMonitorConfigSchema, newId } from '@vantage/shared-protocol';
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
