import { readFileSync } from 'node:fs';
import t from 'tap';
import { ERROR_CODES, ERROR_STATUS, errorEnvelopeSchema } from '@vantage/shared-protocol';
import { call, registerUser, testApp } from '../test-support/app.js';
import { headingAnchor } from './api-docs.routes.js';

const ERRORS_MD = readFileSync(new URL('../../../docs/api/errors.md', import.meta.url), 'utf8');

/** The anchors of a markdown page's headings (as GitHub and our HTML view make them). */
function anchors(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => headingAnchor(m[1]!)));
}

t.test('docs/api/errors.md has an entry for every code, with its status', async (t) => {
  for (const code of ERROR_CODES) {
    const entry = new RegExp(`^#### ${code}\\n\\n(\\d{3})\\. \\S`, 'm').exec(ERRORS_MD);
    t.ok(entry, `errors.md has "#### ${code}" followed by its status and meaning`);
    if (entry) t.equal(Number(entry[1]), ERROR_STATUS[code], `${code}: the status given is ERROR_STATUS's`);
  }
  const listed = [...ERRORS_MD.matchAll(/^#### ([A-Z][A-Z0-9_]+)$/gm)].map((m) => m[1]!);
  t.same(listed.filter((c) => !(c in ERROR_STATUS)), [], 'no entry for a code that does not exist');
  t.equal(new Set(listed).size, listed.length, 'each code once');
});

t.test('doc_url on every envelope resolves, on the running app, to the code\'s entry', async (t) => {
  const { app, url } = await testApp(t);
  const u = await registerUser(app);
  const requests: Array<[string, string, string, Record<string, unknown>]> = [
    ['NOT_FOUND', 'GET', '/v1/nope', {}],
    ['METHOD_NOT_ALLOWED', 'DELETE', '/v1/openapi.json', {}],
    ['AUTH_REQUIRED', 'GET', '/v1/account/profile', {}],
    ['AUTH_INVALID_TOKEN', 'GET', '/v1/account/profile', { token: 'sk_live_nope' }],
    ['VALIDATION_FAILED', 'POST', '/v1/monitors', { token: u.access_token, body: { name: '' } }],
    ['REQUEST_BODY_INVALID', 'POST', '/v1/monitors', { token: u.access_token, body: '{' }],
    ['MONITOR_NOT_FOUND', 'GET', '/v1/monitors/m_01jd3k6w9z4q8r2t7v5x1y3b6c', { token: u.access_token }],
  ];
  const page = new Map<string, string>();
  for (const [code, method, path, opts] of requests) {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(opts.body !== undefined ? { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) } : {}),
    });
    const body = await res.json() as { error: { code: string; doc_url?: string } };
    t.equal(body.error.code, code, `${method} ${path}`);
    t.ok(errorEnvelopeSchema.safeParse(body).success, `${code}: the envelope schema holds`);
    t.equal(body.error.doc_url, `${url}/docs/api/errors.md#${code.toLowerCase()}`, `${code}: doc_url`);
    const target = new URL(body.error.doc_url!);
    // Fetch the page over the real socket, as a client following the link would.
    const key = target.origin + target.pathname;
    if (!page.has(key)) {
      const doc = await fetch(key);
      t.equal(doc.status, 200, 'the errors page is served');
      t.match(doc.headers.get('content-type'), /^text\/markdown; charset=utf-8/);
      page.set(key, await doc.text());
    }
    t.ok(anchors(page.get(key)!).has(target.hash.slice(1)), `${code}: the page has the anchor ${target.hash}`);
  }
  t.equal(page.get(`${url}/docs/api/errors.md`), ERRORS_MD, 'the page served is the repository\'s errors.md');

  const html = await fetch(`${url}/docs/api/errors.md`, { headers: { accept: 'text/html,application/xhtml+xml;q=0.9' } });
  t.match(html.headers.get('content-type'), /^text\/html; charset=utf-8/, 'a browser gets HTML');
  const text = await html.text();
  for (const code of ERROR_CODES) t.match(text, `<h4 id="${code.toLowerCase()}">${code}</h4>`, `HTML anchor for ${code}`);
  t.notMatch(text, /<script/i);

  const versioning = await fetch(`${url}/docs/api/versioning.md`);
  t.equal(versioning.status, 200, 'the versioning page is served too');
  for (const bad of ['/docs/api/nope.md', '/docs/api/..%2F..%2Fpackage.json', '/docs/api/errors.txt']) {
    const r = await call(app, 'GET', bad);
    t.ok([400, 404].includes(r.status), `${bad}: refused (${r.status})`);
    t.notMatch(JSON.stringify(r.body), /"private": true/, `${bad}: no other file`);
  }
});

t.test('doc_url follows VANTAGE_PUBLIC_URL', async (t) => {
  const { app } = await testApp(t, { config: { public_url: 'https://vantage.example.com/base/' } });
  const r = await call(app, 'GET', '/v1/nope');
  t.equal(r.body.error.doc_url, 'https://vantage.example.com/base/docs/api/errors.md#not_found');
});

t.test('messages by Accept-Language; the English detail stays in details.message_en', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const path = '/v1/monitors?limit=1000';
  const en = await call(app, 'GET', path, { token: u.access_token, headers: { 'accept-language': 'en-US' } });
  t.equal(en.status, 400);
  t.match(en.body.error.message, /^limit: /, 'English: the route\'s message naming the field');
  t.notOk('message_en' in en.body.error.details, 'no copy in English');
  const cn = await call(app, 'GET', path, { token: u.access_token, headers: { 'accept-language': 'zh-CN' } });
  t.equal(cn.body.error.message, '参数校验失败');
  t.equal(cn.body.error.details.message_en, en.body.error.message, 'the English detail is kept');
  t.same(cn.body.error.details.fields, en.body.error.details.fields, 'field details unchanged');
  const tw = await call(app, 'GET', path, { token: u.access_token, headers: { 'accept-language': 'zh-TW' } });
  t.equal(tw.body.error.message, '參數驗證失敗');
  t.equal(tw.body.error.code, 'VALIDATION_FAILED', 'the code never changes');

  // A code thrown without a detail has no message_en: there is nothing more to say.
  const generic = await call(app, 'GET', '/v1/account/profile', { headers: { 'accept-language': 'zh-TW' } });
  t.equal(generic.body.error.code, 'AUTH_REQUIRED');
  t.equal(generic.body.error.message, '需要身分驗證');
});
