/**
 * What the agent builds around the browser runner: the `browser` capability only when a Chromium
 * names its version, and the one pool made at the first browser check and closed with the agent.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { silentLogger } from '../probes/test-support/logger.js';
import { browserAdvertised, browserExecutable } from './advertise.js';
import { LazyBrowserPool } from './lazy-pool.js';
import { ALLOW_LOOPBACK, CHROMIUM_PATH, SKIP_WITHOUT_CHROMIUM } from './test-support/harness.js';
import { createBrowserCheck } from './check.js';
import { startPageServer } from './test-support/pages.js';
import { browserMonitorConfigSchema } from '@vantage/shared-protocol';

t.test('browser is not advertised without a Chromium', async (t) => {
  t.equal(await browserAdvertised('/nonexistent/chromium', silentLogger()), false, 'no binary');
  t.equal(await browserAdvertised('/bin/true', silentLogger()), false, 'a binary that is no browser');
  t.equal(browserExecutable('/opt/chromium'), '/opt/chromium', 'the configured one wins');
});

t.test('detection asks the binary its version and launches no browser', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-fake-chromium-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const calls = join(dir, 'calls');
  const fake = join(dir, 'chromium');
  // A stand-in that answers --version as Debian's chromium does and records every call.
  writeFileSync(fake, `#!/bin/sh\necho "$*" >> '${calls}'\n[ "$1" = --version ] && echo 'Chromium 156.0.8078.108 built on Debian GNU/Linux 12 (bookworm)' && exit 0\nexit 1\n`);
  chmodSync(fake, 0o755);
  t.equal(await browserAdvertised(fake, silentLogger()), true, 'advertised from its version');
  t.equal(await browserAdvertised(fake, silentLogger()), true);
  t.same(readFileSync(calls, 'utf8').trim().split('\n'), ['--version'], 'asked once per process, never launched');
});

t.test('browser is advertised when Chromium is there', { skip: SKIP_WITHOUT_CHROMIUM }, async (t) => {
  t.equal(await browserAdvertised(CHROMIUM_PATH, silentLogger()), true);
});

t.test('a node without a pool fails browser checks with a reason', async (t) => {
  const r = await createBrowserCheck(null).run('http://127.0.0.1/', browserMonitorConfigSchema.parse({}), {
    signal: AbortSignal.timeout(5000), policy: ALLOW_LOOPBACK, log: silentLogger(), monitor_id: 'm_x', scheduled_at: new Date().toISOString(),
  });
  t.match(r, { success: false, error_class: 'internal', error: /no browser/ });
});

t.test('the pool is made at the first check and closed with the agent', { skip: SKIP_WITHOUT_CHROMIUM }, async (t) => {
  const pages = await startPageServer();
  t.teardown(() => pages.close());
  const lazy = new LazyBrowserPool({ executable_path: CHROMIUM_PATH, concurrency: 1, log: silentLogger() });
  t.teardown(() => lazy.close());
  t.equal(lazy.started, false, 'nothing launched before a browser check');
  const check = createBrowserCheck(lazy);
  const ctx = { signal: AbortSignal.timeout(60_000), policy: ALLOW_LOOPBACK, log: silentLogger(), monitor_id: 'm_x', scheduled_at: new Date().toISOString() };
  const r = await check.run(pages.url('/ok'), browserMonitorConfigSchema.parse({}), ctx);
  t.equal(r.success, true, r.error ?? '');
  t.same(r.assertions, [], 'browser assertions are in the output');
  t.ok(r.output.assertion_results.length > 0);
  const pid = lazy.get().pid();
  t.ok(pid, 'one browser running');
  await check.run(pages.url('/ok'), browserMonitorConfigSchema.parse({}), ctx);
  t.equal(lazy.get().launches, 1, 'the same browser for the next check');
  await lazy.close();
  const alive = (() => { try { process.kill(pid!, 0); return true; } catch { return false; } })();
  t.notOk(alive, 'the browser exited');
  t.throws(() => lazy.get(), /shutting down/);
  const after = await check.run(pages.url('/ok'), browserMonitorConfigSchema.parse({}), ctx).catch((e: Error) => e);
  t.ok(after instanceof Error, 'no check runs after the close (the runner reports it as internal)');
});
