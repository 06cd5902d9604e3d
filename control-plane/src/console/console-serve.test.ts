import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import t from 'tap';
import { testApp } from '../test-support/app.js';
import { CONSOLE_CSP } from './console-serve.js';

// The console's files at / (docs/console.md): cache headers, CSP, the page fallback, and that the
// API is never shadowed; without a build, / says so and the API still answers.

function fakeBuild(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/assets/index-abc123.js"></script>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), `console.log(${JSON.stringify('x'.repeat(2000))});`);
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

t.test('a built console: files, page fallback, cache headers, CSP; API paths untouched', async (t) => {
  const { app } = await testApp(t, { config: { console_dir: fakeBuild(t) } });
  const index = await app.request('/');
  t.equal(index.status, 200);
  t.equal(index.headers.get('cache-control'), 'no-cache');
  t.equal(index.headers.get('content-security-policy'), CONSOLE_CSP);
  t.notMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/);
  t.match(await index.text(), '<title>console</title>');

  const asset = await app.request('/assets/index-abc123.js', { headers: { 'accept-encoding': 'gzip, br' } });
  t.equal(asset.status, 200);
  t.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.match(asset.headers.get('content-type'), 'text/javascript');
  t.equal(asset.headers.get('content-encoding'), 'br', 'br before gzip at equal weight');
  t.match(brotliDecompressSync(Buffer.from(await asset.arrayBuffer())).toString(), 'console.log');
  const gz = await app.request('/assets/index-abc123.js', { headers: { 'accept-encoding': 'gzip' } });
  t.equal(gz.headers.get('content-encoding'), 'gzip');
  t.match(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString(), 'console.log');
  const plain = await app.request('/assets/index-abc123.js');
  t.equal(plain.headers.get('content-encoding'), null, 'no Accept-Encoding: as it is');
  t.match(await plain.text(), 'console.log');
  const revalidated = await app.request('/', { headers: { accept: 'text/html', 'if-none-match': index.headers.get('etag')! } });
  t.equal(revalidated.status, 304, 'index.html revalidated by its ETag');

  const page = await app.request('/monitors/m_123', { headers: { accept: 'text/html,application/xhtml+xml' } });
  t.equal(page.status, 200, 'a page URL gets index.html');
  t.match(await page.text(), '<title>console</title>');
  t.equal((await app.request('/favicon.svg')).headers.get('cache-control'), 'no-cache');

  const missingAsset = await app.request('/assets/gone.js', { headers: { accept: 'text/html' } });
  t.equal(missingAsset.status, 404, 'a missing asset is a 404, never index.html');
  const notHtml = await app.request('/monitors/m_123', { headers: { accept: 'application/json' } });
  t.equal(notHtml.status, 404);

  for (const [path, code] of [['/v1/nothing-here', 'NOT_FOUND'], ['/docs/nothing-here', 'NOT_FOUND']]) {
    const res = await app.request(path!, { headers: { accept: 'text/html' } });
    t.equal(res.status, 404, `${path} is not the console's`);
    t.equal(((await res.json()) as { error: { code: string } }).error.code, code);
  }
  const statusPage = await app.request('/status/some-page', { headers: { accept: 'text/html' } });
  t.equal(statusPage.status, 404, '/status/some-page is not the console\'s');
  t.match(await statusPage.text(), 'No status page here', 'the status pages\' own 404 page');
  const api = await app.request('/v1/openapi.json', { headers: { accept: 'text/html' } });
  t.equal(api.status, 200);
  t.match(api.headers.get('content-type'), 'application/json');
  const traversal = await app.request('/..%2F..%2Fetc%2Fpasswd', { headers: { accept: 'application/json' } });
  t.not(traversal.status, 200);
  const post = await app.request('/monitors', { method: 'POST', headers: { accept: 'text/html' } });
  t.equal(post.status, 404, 'only GET and HEAD reach the console');
});

t.test('no built console: / says so with 503, the API still works', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'console-none-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  const { app } = await testApp(t, { config: { console_dir: join(empty, 'dist') } });
  const root = await app.request('/');
  t.equal(root.status, 503);
  t.match(await root.text(), 'The web console is not built');
  t.equal(root.headers.get('content-security-policy'), CONSOLE_CSP);
  t.equal((await app.request('/v1/openapi.json')).status, 200);
  t.equal((await app.request('/monitors', { headers: { accept: 'text/html' } })).status, 404);
});
