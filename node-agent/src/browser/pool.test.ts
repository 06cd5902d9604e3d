/**
 * The browser pool and the request guard with the real Chromium: a browser killed mid-check is
 * relaunched and the check fails with a clear error; a hung check is ended at its deadline, as is
 * one whose deadline passes while the browser launches; at
 * most `concurrency` checks run at once; relaunch after `checks_per_browser`; the target policy
 * for the top-level URL and for subresources; the target proxy lives and dies with its browser;
 * capability detection.
 */
import t from 'tap';
import { detectBrowser } from './capability.js';
import { BrowserCrashedError } from './pool.js';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, CHROMIUM_PATH, SKIP_WITHOUT_CHROMIUM, testPool } from './test-support/harness.js';
import { startPageServer } from './test-support/pages.js';
import { portOf } from './test-support/raw-proxy-client.js';

/** Whether something listens on `server` (`http://127.0.0.1:<port>`). */
const listening = (server: string) => new Promise<boolean>((resolve) => {
  const c = net.connect(portOf(server), '127.0.0.1', () => { c.destroy(); resolve(true); });
  c.on('error', () => resolve(false));
});

// The file as a whole (tap's default is 120 s per file): six Chromium launches on a loaded machine.
t.setTimeout(400_000);

const until = async (what: string, cond: () => boolean, bound_ms = 30_000) => {
  const end = Date.now() + bound_ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

t.test('browser pool', { skip: SKIP_WITHOUT_CHROMIUM }, async (t) => {
  const pages = await startPageServer();
  t.teardown(() => pages.close());

  t.test('a browser killed mid-check is relaunched; the check fails clearly', async (t) => {
    const pool = testPool();
    t.teardown(() => pool.close());
    const running = check(pool, pages.url('/hang'), { assertions: [{ kind: 'renderable' }] });
    await pages.requested('/never.png');
    const pid = pool.pid();
    t.ok(pid, 'browser pid found');
    process.kill(pid!, 'SIGKILL');
    const r = await running;
    t.equal(r.success, false);
    t.equal(r.error_class, 'internal');
    t.match(r.error, /^browser crashed during the check \(.*\); it is relaunched for the next check$/);
    const next = await check(pool, pages.url('/ok'), { assertions: [{ kind: 'renderable' }] });
    t.equal(next.success, true, next.error ?? '');
    t.equal(pool.launches, 2, 'relaunched once');
    t.not(pool.pid(), pid, 'a new browser process');
  });

  t.test('a check that outlives its deadline ends with a timeout, the browser stays usable', async (t) => {
    const pool = testPool();
    t.teardown(() => pool.close());
    const r = await check(pool, pages.url('/hang'), {}, { signal: AbortSignal.timeout(2000) });
    t.equal(r.error_class, 'timeout');
    const next = await check(pool, pages.url('/ok'));
    t.equal(next.success, true, next.error ?? '');
  });

  t.test('a check whose calls do not settle after its deadline ends: the pool kills the browser after the grace', async (t) => {
    // A newPage() in flight as its context closed once never settled (Playwright): no call is
    // trusted to end with the context. Here a page call that never settles, and nothing closes
    // the context: only the pool's grace can end the check.
    const pool = testPool({ abort_grace_ms: 1000 });
    t.teardown(() => pool.close());
    t.equal((await check(pool, pages.url('/ok'))).success, true, 'the browser runs');
    const pid = pool.pid();
    const signal = AbortSignal.timeout(1500);
    const started = Date.now();
    const ended = await pool.use({}, signal, async (ctx) => {
      const page = await ctx.newPage();
      return page.evaluate(() => new Promise<never>(() => undefined));
    }).then(() => 'settled', (err: Error) => err);
    t.type(ended, BrowserCrashedError, 'the check fails with the browser killed under it');
    t.ok(Date.now() - started < 30_000, `it ended ${Date.now() - started} ms after it started (deadline 1.5 s, grace 1 s)`);
    t.not(pool.pid(), pid, 'that browser is gone');
    const next = await check(pool, pages.url('/ok'));
    t.equal(next.success, true, next.error ?? '');
    t.equal(pool.launches, 2, 'relaunched for the next check');
  });

  t.test('a deadline that passes while the browser launches ends the check at once; the launch goes on', async (t) => {
    // A Chromium that takes 6 s to start (a loaded machine's, exaggerated): a wrapper readable by
    // the account Chromium runs as (nobody, when the tests run as root).
    const dir = mkdtempSync(join(tmpdir(), 'vantage-slow-chromium-'));
    chmodSync(dir, 0o755);
    const slow = join(dir, 'chromium');
    writeFileSync(slow, `#!/bin/sh\nsleep 6\nexec ${CHROMIUM_PATH} "$@"\n`, { mode: 0o755 });
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const pool = testPool({ executable_path: slow, launch_timeout_ms: 120_000 });
    t.teardown(() => pool.close());
    const r = await check(pool, pages.url('/ok'), {}, { signal: AbortSignal.timeout(1000) });
    t.equal(r.error_class, 'timeout', r.error ?? '');
    t.equal(pool.launches, 0, 'the check ended before the browser had launched');
    const next = await check(pool, pages.url('/ok'), {}, { signal: AbortSignal.timeout(120_000) });
    t.equal(next.success, true, next.error ?? '');
    t.equal(pool.launches, 1, 'the launch the first check started serves the next');
  });

  t.test('at most `concurrency` checks at once', async (t) => {
    const pool = testPool({ concurrency: 2 });
    t.teardown(() => pool.close());
    const before = pages.hits.filter((h) => h === '/slow').length;
    const runs = [0, 1, 2, 3].map(() => check(pool, pages.url('/slow?ms=1500')));
    await until('two pages requested', () => pages.hits.filter((h) => h === '/slow').length - before >= 2);
    // The slow images take 1500 ms: while the first two wait for theirs, the other two wait for a slot.
    await new Promise((resolve) => setTimeout(resolve, 500));
    t.equal(pages.hits.filter((h) => h === '/slow').length - before, 2, 'the third and fourth wait for a slot');
    const results = await Promise.all(runs);
    t.ok(results.every((r) => r.success), 'all four ran');
    t.equal(pool.launches, 1, 'one browser');
  });

  t.test('the browser is relaunched after checks_per_browser checks', async (t) => {
    const pool = testPool({ checks_per_browser: 2 });
    t.teardown(() => pool.close());
    for (let i = 0; i < 3; i++) t.equal((await check(pool, pages.url('/ok'))).success, true);
    t.equal(pool.launches, 2);
  });

  t.test('the browser is relaunched when its memory exceeds the bound', async (t) => {
    const pool = testPool({ rss_max_bytes: 1 });
    t.teardown(() => pool.close());
    for (let i = 0; i < 2; i++) t.equal((await check(pool, pages.url('/ok'))).success, true);
    t.equal(pool.launches, 2);
  });

  t.test('target policy: the top-level URL and every subresource', async (t) => {
    const pool = testPool();
    t.teardown(() => pool.close());
    const top = await check(pool, pages.url('/ok'), {}, { policy: { allow_private: false, allow_cidrs: [] } });
    t.equal(top.error_class, 'blocked');
    t.match(top.error, /target 127\.0\.0\.1 \(loopback\), which this check may not reach/);

    const other = await startPageServer('127.0.0.2');
    t.teardown(() => other.close());
    const cross = await check(pool, pages.url(`/cross?to=${encodeURIComponent(other.url('/img.png'))}`), { assertions: [{ kind: 'resources_all_ok' }] }, {
      policy: { allow_private: false, allow_cidrs: ['127.0.0.1/32'] },
    });
    t.equal(cross.error_class, 'assertion');
    t.same(cross.output.failed_resources.map((r) => [r.url, r.status]), [[other.url('/img.png'), 0]], 'the other origin refused');
    t.same(other.hits, [], 'the refused address never saw a request');
  });
});

t.test('the target proxy closes with its browser', { skip: SKIP_WITHOUT_CHROMIUM }, async (t) => {
  const pages = await startPageServer();
  const pool = testPool();
  t.teardown(async () => { await pool.close(); await pages.close(); });
  t.equal((await check(pool, pages.url('/ok'))).success, true);
  const first = pool.proxyServer()!;
  t.ok(first && await listening(first), 'the proxy listens while its browser runs');
  process.kill(pool.pid()!, 'SIGKILL');
  const end = Date.now() + 30_000;
  while (await listening(first)) {
    if (Date.now() > end) throw new Error('the proxy outlived its killed browser');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.pass('a killed browser takes its proxy with it');
  t.equal((await check(pool, pages.url('/ok'))).success, true, 'the relaunched browser has a working proxy');
  const second = pool.proxyServer()!;
  t.not(second, first, 'a new proxy for the new browser');
  await pool.close();
  t.equal(await listening(second), false, 'closing the pool closes the proxy');
});

t.test('capability detection', async (t) => {
  const missing = await detectBrowser('/nonexistent/chromium');
  t.equal(missing.ok, false);
  t.match(!missing.ok && missing.reason, /no executable Chromium at \/nonexistent\/chromium/);
  if (SKIP_WITHOUT_CHROMIUM) return;
  const found = await detectBrowser(CHROMIUM_PATH);
  t.ok(found.ok && /^\d+\.\d+\.\d+\.\d+$/.test(found.version), 'names its version here');
});
