/**
 * Browser checks with the real Chromium against local pages: metadata shape, a slow resource, a
 * 404 image, console errors, a missing selector, a page over its load budget, text, an error
 * status, the screenshot (a PNG of the viewport width) and the HAR (valid HAR 1.2).
 */
import t from 'tap';
import { browserCheckOutputSchema } from '@vantage/shared-protocol';
import { harValidator } from './test-support/har-validator.js';
import { check, SKIP_WITHOUT_CHROMIUM, testPool } from './test-support/harness.js';
import { pngSize, startPageServer } from './test-support/pages.js';

t.test('browser checks against local pages', { skip: SKIP_WITHOUT_CHROMIUM }, async (t) => {
  const pages = await startPageServer();
  const pool = testPool();
  t.teardown(async () => { await pool.close(); await pages.close(); });

  t.test('a good page: metadata, screenshot, HAR', async (t) => {
    const r = await check(pool, pages.url('/ok'), {
      screenshot: true, viewport: { width: 800, height: 600 },
      assertions: [{ kind: 'renderable' }, { kind: 'resources_all_ok' }, { kind: 'no_console_errors' }, { kind: 'element_present', selector: 'h1#title' }, { kind: 'text_present', value: 'Hello Vantage' }],
    });
    t.equal(r.error, null);
    t.equal(r.success, true);
    t.ok(browserCheckOutputSchema.safeParse(r.output).success, 'output matches the metadata schema');
    t.same(r.output.assertion_results.map((a) => [a.kind, a.ok]), [['renderable', true], ['resources_all_ok', true], ['no_console_errors', true], ['element_present', true], ['text_present', true], ['load_under_ms', true]]);
    const types = r.output.resources.map((x) => x.type).sort();
    t.same(types, ['document', 'image', 'script', 'stylesheet'], 'each resource typed');
    t.ok(r.output.resources.every((x) => x.status === 200 && !x.failed && x.size_bytes > 0), 'statuses and sizes');
    const doc = r.output.resources.find((x) => x.type === 'document')!;
    t.ok(r.output.resources.every((x) => x.start_ms >= doc.start_ms && x.start_ms < 60_000), 'starts relative to the navigation, document first');
    t.equal(r.output.waterfall?.resource_count, 4);
    t.equal(r.output.waterfall?.failed_count, 0);
    t.ok(r.output.load_ms !== null && r.output.dom_content_loaded_ms !== null, 'timings measured');
    t.equal(r.output.har_url, '');
    t.equal(r.output.screenshot_url, '');
    t.ok(r.artifacts.screenshot, 'screenshot taken');
    t.equal(pngSize(r.artifacts.screenshot!)?.width, 800, 'a PNG of the viewport width');
    t.ok(r.artifacts.har, 'HAR kept');
    const har = JSON.parse(r.artifacts.har!.toString('utf8')) as { log: { version: string; entries: { request: { url: string } }[] } };
    t.equal(harValidator()(har), null, 'valid HAR 1.2');
    t.equal(har.log.version, '1.2');
    t.ok(har.log.entries.some((e) => e.request.url.endsWith('/img.png')), 'HAR lists the image');
  });

  t.test('no screenshot unless configured', async (t) => {
    const r = await check(pool, pages.url('/ok'));
    t.equal(r.success, true);
    t.equal(r.artifacts.screenshot, null);
  });

  t.test('a slow resource is timed', async (t) => {
    const r = await check(pool, pages.url('/slow?ms=700'), { assertions: [{ kind: 'renderable' }] });
    t.equal(r.success, true, r.error ?? '');
    const slow = r.output.resources.find((x) => x.url.includes('/delay.png'));
    t.ok(slow && slow.duration_ms >= 650, `slow resource duration ${slow?.duration_ms}`);
    t.ok((r.output.waterfall?.slowest_resource_ms ?? 0) >= 650, 'slowest in the waterfall');
    t.ok((r.output.load_ms ?? 0) >= 650, 'load waited for it');
  });

  t.test('a 404 image fails resources_all_ok', async (t) => {
    const r = await check(pool, pages.url('/missing-image'), { assertions: [{ kind: 'renderable' }, { kind: 'resources_all_ok' }] });
    t.equal(r.success, false);
    t.equal(r.error_class, 'assertion');
    t.match(r.error, /1 resource\(s\) failed, first .*\/missing\.png \(HTTP 404\)/);
    t.same(r.output.failed_resources.map((x) => [x.type, x.status, x.failed]), [['image', 404, true]]);
    t.equal(r.output.waterfall?.failed_count, 1);
  });

  t.test('console errors fail no_console_errors', async (t) => {
    const r = await check(pool, pages.url('/console'), { assertions: [{ kind: 'no_console_errors' }] });
    t.equal(r.success, false);
    t.match(r.error, /2 console error\(s\), first: boom from the page/);
    t.same(r.output.console_errors, ['boom from the page', 'Uncaught Error: kaput']);
  });

  t.test('a missing selector fails element_present; a bad one says why', async (t) => {
    const r = await check(pool, pages.url('/ok'), { assertions: [{ kind: 'element_present', selector: 'h1' }, { kind: 'element_present', selector: '#checkout' }, { kind: 'element_present', selector: 'a[' }] });
    t.equal(r.success, false);
    t.equal(r.error, 'no element matches "#checkout"', 'the first failing detail is the error');
    t.same(r.output.assertion_results.map((a) => a.ok), [true, false, false, true]);
    t.match(r.output.assertion_results[2]!.detail, /selector "a\[" could not be used: .*not a valid selector/);
  });

  t.test('text_present', async (t) => {
    const r = await check(pool, pages.url('/ok'), { assertions: [{ kind: 'text_present', value: 'Goodbye' }] });
    t.equal(r.error, 'the page does not show "Goodbye"');
  });

  t.test('a page over its load budget', async (t) => {
    const r = await check(pool, pages.url('/slow?ms=1500'), { load_budget_ms: 300 });
    t.equal(r.success, false);
    t.equal(r.error_class, 'assertion');
    t.match(r.error, /^load took \d+ ms, over the load budget of 300 ms$/);
    const under = await check(pool, pages.url('/slow?ms=1500'), { load_budget_ms: 0, assertions: [{ kind: 'load_under_ms', value: 400 }] });
    t.match(under.error, /over the limit of 400 ms/);
    t.equal(under.output.assertion_results.length, 1, 'budget 0: no budget assertion');
  });

  t.test('wait_until domcontentloaded does not wait for a hanging image', async (t) => {
    const r = await check(pool, pages.url('/hang'), { wait_until: 'domcontentloaded', assertions: [{ kind: 'renderable' }] });
    t.equal(r.success, true, r.error ?? '');
    t.notOk(r.output.resources.some((x) => x.url.includes('/never.png')), 'requests still open are left out');
  });

  t.test('an empty page is not renderable; an error status fails', async (t) => {
    const empty = await check(pool, pages.url('/empty'), { assertions: [{ kind: 'renderable' }] });
    t.equal(empty.error, 'the page rendered nothing (empty body)');
    const error = await check(pool, pages.url('/error'));
    t.equal(error.error, 'the page answered HTTP 500');
    t.equal(error.error_class, 'target');
  });

  t.test('a refused connection is the target\'s failure', async (t) => {
    const closed = await startPageServer();
    const url = closed.url('/');
    await closed.close();
    const r = await check(pool, url, { assertions: [{ kind: 'renderable' }] });
    t.equal(r.error_class, 'target');
    // Through the node's target proxy a refused upstream connection reaches Chromium as a reset (proxy.ts).
    t.match(r.error, /ERR_CONNECTION_RESET/);
    t.equal(r.output.assertion_results[0]?.ok, false);
  });

  t.test('targets that are not http(s) URLs are rejected', async (t) => {
    t.equal((await check(pool, 'file:///etc/passwd')).error_class, 'rejected');
    t.equal((await check(pool, 'not a url')).error_class, 'rejected');
  });
});
