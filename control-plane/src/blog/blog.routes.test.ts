import t from 'tap';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { call, registerUser, testApp } from '../test-support/app.js';
import { viewCounterFor } from './view-counter.js';

/*
 * The blog through the app on a real database: administrators write posts (every admin route
 * refused to other accounts and anonymous callers), the public reads published ones only, with
 * filters and paging, sanitised HTML, linked translations, views counted in batches, and an Atom
 * feed checked by an XML parser against RFC 4287's required elements.
 */

const hostile = [
  '# Title',
  '<script>alert(1)</script>',
  '[click](javascript:alert(1)) [mail](mailto:a@example.com) [web](https://example.com/x)',
  '![pixel](data:image/png;base64,AAAA) ![ok](https://example.com/a.png)',
  '<img src=x onerror=alert(1)>',
  '| a | b |\n|:-|-:|\n| 1 | 2 |',
].join('\n\n');

t.test('blog: admin CRUD, public reads, sanitised HTML, translations, batched views, Atom feed', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: { blog_view_flush_ms: 600_000 } });
  const admin = await registerUser(app); // the first account is the deployment's administrator
  const alice = await registerUser(app);
  const asAdmin = (method: string, path: string, body?: unknown) => call(app, method, path, { token: admin.access_token, ...(body === undefined ? {} : { body }) });
  const post = (over: Record<string, unknown>) => ({ locale: 'en', title: 'Anycast DNS latency', summary: 'What the nodes saw.', author: 'Vantage team', tags: ['DNS', 'latency'], content_md: 'Hello **world**', ...over });

  t.test('the admin boundary of every admin blog route', async (t) => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v1/admin/blog/posts'], ['POST', '/v1/admin/blog/posts', post({ slug: 'x' })], ['GET', '/v1/admin/blog/posts/x'],
      ['PATCH', '/v1/admin/blog/posts/x', { title: 'y' }], ['DELETE', '/v1/admin/blog/posts/x'],
    ];
    for (const [method, path, body] of routes) {
      const r = await call(app, method, path, { token: alice.access_token, ...(body === undefined ? {} : { body }) });
      t.equal(r.status, 403, `${method} ${path} as another account`);
      t.equal((await call(app, method, path, body === undefined ? {} : { body })).status, 401, `${method} ${path} anonymous`);
    }
    t.equal((await sql`SELECT count(*)::int AS n FROM blog_posts`)[0]!.n, 0);
  });

  const past = new Date(Date.now() - 3600_000).toISOString();
  t.test('write: create, refuse, conflict, change', async (t) => {
    let r = await asAdmin('POST', '/v1/admin/blog/posts', post({ slug: 'anycast-dns', translation_key: 'anycast-2026', published_at: past, cover_url: 'https://example.com/c.png', content_md: hostile }));
    t.equal(r.status, 201, JSON.stringify(r.body));
    t.match(r.body.data, { slug: 'anycast-dns', tags: ['dns', 'latency'], locale: 'en', published_at: past, view_count: 0, cover_url: 'https://example.com/c.png', translation_key: 'anycast-2026' });
    r = await asAdmin('POST', '/v1/admin/blog/posts', post({ slug: 'anycast-dns-cn', locale: 'cn', title: '任播 DNS 延迟', translation_key: 'anycast-2026', published_at: past, tags: ['dns'] }));
    t.equal(r.status, 201);
    await asAdmin('POST', '/v1/admin/blog/posts', post({ slug: 'draft-post', tags: ['dns'] }));
    await asAdmin('POST', '/v1/admin/blog/posts', post({ slug: 'future-post', published_at: new Date(Date.now() + 86_400_000).toISOString() }));
    for (const i of [1, 2, 3]) await asAdmin('POST', '/v1/admin/blog/posts', post({ slug: `older-${i}`, tags: ['ops'], published_at: new Date(Date.now() - i * 86_400_000).toISOString() }));

    for (const [body, field] of [
      [post({ slug: 'Bad Slug' }), 'slug'],
      [post({ slug: 'ok', locale: 'fr' }), 'locale'],
      [post({ slug: 'ok', title: '' }), 'title'],
      [post({ slug: 'ok', cover_url: 'javascript:alert(1)' }), 'cover_url'],
      [post({ slug: 'ok', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }), 'tags'],
      [post({ slug: 'ok', content_md: 'x'.repeat(30_001) }), 'content_md'],
      [post({ slug: 'ok', view_count: 5 }), ''],
    ] as const) {
      r = await asAdmin('POST', '/v1/admin/blog/posts', body);
      t.equal(r.status, 400, `refused: ${field || 'unknown field'}`);
      if (field) t.ok(JSON.stringify(r.body.error.details).includes(field), `names ${field}`);
    }
    r = await asAdmin('POST', '/v1/admin/blog/posts', post({ slug: 'anycast-dns' }));
    t.equal(r.status, 409, 'slug taken');
    r = await asAdmin('POST', '/v1/admin/blog/posts', post({ slug: 'another', translation_key: 'anycast-2026' }));
    t.equal(r.status, 409, 'one post per locale in a translation group');
    t.equal(r.body.error.details.field, 'translation_key');
    r = await asAdmin('PATCH', '/v1/admin/blog/posts/older-3', { title: 'Renamed', cover_url: null });
    t.match(r.body.data, { title: 'Renamed' });
    t.equal((await asAdmin('PATCH', '/v1/admin/blog/posts/nope', { title: 'x' })).status, 404);
    t.equal((await asAdmin('PATCH', '/v1/admin/blog/posts/older-3', { slug: 'other' })).status, 400, 'the slug does not change');
    t.equal((await sql`SELECT count(*)::int AS n FROM blog_posts`)[0]!.n, 7, 'refusals wrote nothing');
  });

  t.test('public list: published only, filters, paging', async (t) => {
    let r = await call(app, 'GET', '/v1/blog/posts');
    t.equal(r.status, 200);
    t.same(r.body.data.items.map((p: any) => p.slug).sort(), ['anycast-dns', 'anycast-dns-cn', 'older-1', 'older-2', 'older-3'], 'no drafts, nothing scheduled later');
    t.notOk('cover_url' in r.body.data.items.find((p: any) => p.slug === 'older-1'), 'absent cover_url is omitted');
    t.notOk('content_md' in r.body.data.items[0], 'summary rows');
    r = await call(app, 'GET', '/v1/blog/posts?locale=cn');
    t.same(r.body.data.items.map((p: any) => p.slug), ['anycast-dns-cn']);
    r = await call(app, 'GET', '/v1/blog/posts?tag=OPS&page_size=2&page=1');
    t.match(r.body.data, { total: 3, page: 1, page_size: 2, has_more: true });
    t.same(r.body.data.items.map((p: any) => p.slug), ['older-1', 'older-2'], 'newest first');
    r = await call(app, 'GET', '/v1/blog/posts?tag=ops&page_size=2&page=2');
    t.same(r.body.data.items.map((p: any) => p.slug), ['older-3']);
    t.equal(r.body.data.has_more, false);
    t.equal((await call(app, 'GET', '/v1/blog/posts?locale=de')).status, 400);
    t.equal((await call(app, 'GET', '/v1/blog/posts?page_size=201')).status, 400);
    r = await asAdmin('GET', '/v1/admin/blog/posts?page_size=200');
    t.equal(r.body.data.total, 7, 'administrators see drafts');
    t.equal(r.body.data.items[0].published_at, null, 'drafts first');
  });

  t.test('detail: sanitised HTML, translations, drafts hidden', async (t) => {
    const r = await call(app, 'GET', '/v1/blog/posts/anycast-dns');
    t.equal(r.status, 200);
    const { content_html, content_md, translations } = r.body.data;
    t.equal(content_md, hostile, 'the Markdown as written');
    t.notMatch(content_html, /<script/i);
    t.notMatch(content_html, /href="javascript:/i, 'no script link');
    t.notMatch(content_html, /<img[^>]*onerror/i, 'no event handler');
    t.match(content_html, '[click](javascript:alert(1))', 'the refused link stays as text');
    t.notMatch(content_html, /src="data:/i);
    t.match(content_html, '&lt;script&gt;', 'raw HTML shows as text');
    t.match(content_html, '<a href="https://example.com/x" rel="nofollow noopener noreferrer">web</a>');
    t.match(content_html, '<a href="mailto:a@example.com"');
    t.match(content_html, '<img src="https://example.com/a.png" alt="ok" />');
    t.match(content_html, '<h1>Title</h1>');
    t.match(content_html, '<td style="text-align:right">2</td>');
    t.same(translations, [{ slug: 'anycast-dns-cn', locale: 'cn', title: '任播 DNS 延迟' }]);
    t.equal((await call(app, 'GET', '/v1/blog/posts/draft-post')).status, 404);
    t.equal((await call(app, 'GET', '/v1/blog/posts/future-post')).status, 404);
    t.equal((await asAdmin('GET', '/v1/admin/blog/posts/draft-post')).status, 200);
  });

  t.test('views are counted in memory and written in one batch', async (t) => {
    const counter = viewCounterFor(sql, deps.config.blog_view_flush_ms, deps.log);
    await counter.flush();
    const stored = async (slug: string) => Number((await sql<{ v: string }[]>`SELECT view_count::text AS v FROM blog_posts WHERE slug = ${slug}`)[0]!.v);
    const before = await stored('older-1');
    const reads = await Promise.all(Array.from({ length: 25 }, () => call(app, 'GET', '/v1/blog/posts/older-1')));
    t.ok(reads.every((r) => r.status === 200));
    t.equal(await stored('older-1'), before, 'no write per read');
    t.equal(Math.max(...reads.map((r) => r.body.data.view_count)), before + 25, 'a reader sees the counted reads');
    await call(app, 'GET', '/v1/blog/posts/older-2');
    await counter.flush();
    t.equal(await stored('older-1'), before + 25, 'written at the flush');
    t.equal(await stored('older-2'), 1);
    t.equal((await call(app, 'GET', '/v1/blog/posts/older-1')).body.data.view_count, before + 26);
    t.equal((await asAdmin('GET', '/v1/admin/blog/posts/older-2')).body.data.view_count, 1, 'admin reads count no view');
  });

  t.test('Atom feed: well-formed, RFC 4287 elements, escaped HTML content', async (t) => {
    const res = await app.request('/v1/blog/feed.atom?locale=en');
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/atom\+xml/);
    const xml = await res.text();
    t.equal(XMLValidator.validate(xml), true, 'well-formed XML');
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => ['entry', 'link', 'category'].includes(name) }).parse(xml);
    const feed = doc.feed;
    t.equal(feed['@xmlns'], 'http://www.w3.org/2005/Atom');
    for (const el of ['id', 'title', 'updated']) t.ok(feed[el], `feed has ${el}`);
    t.ok(feed.link.some((l: any) => l['@rel'] === 'self'), 'a self link');
    t.same(feed.entry.map((e: any) => e.id.split(':blog/')[1]), ['anycast-dns', 'older-1', 'older-2', 'older-3'], 'published English posts, newest first');
    for (const e of feed.entry) {
      for (const el of ['id', 'title', 'updated', 'published', 'author', 'content']) t.ok(e[el] !== undefined, `entry has ${el}`);
      t.ok(!Number.isNaN(Date.parse(e.updated)) && /Z$/.test(e.updated), 'RFC 3339 time');
      t.ok(e.author.name, 'entry author name');
    }
    const first = feed.entry[0];
    t.equal(first.content['@type'], 'html');
    t.match(first.content['#text'], '<h1>Title</h1>', 'the HTML travels escaped and comes back whole');
    t.notMatch(first.content['#text'], /<script/);
    t.same(first.category.map((c: any) => c['@term']), ['dns', 'latency']);
    const all = await (await app.request('/v1/blog/feed.atom')).text();
    t.equal(XMLValidator.validate(all), true);
    t.match(all, 'anycast-dns-cn');
    t.equal((await app.request('/v1/blog/feed.atom?locale=xx')).status, 400);
  });

  t.test('delete, audit log', async (t) => {
    t.equal((await asAdmin('DELETE', '/v1/admin/blog/posts/older-3')).status, 200);
    t.equal((await asAdmin('DELETE', '/v1/admin/blog/posts/older-3')).status, 404);
    t.equal((await call(app, 'GET', '/v1/blog/posts/older-3')).status, 404);
    const actions = (await sql<{ action: string }[]>`SELECT DISTINCT action FROM admin_audit WHERE action LIKE 'blog_post.%'`).map((x) => x.action).sort();
    t.same(actions, ['blog_post.create', 'blog_post.delete', 'blog_post.update']);
  });
});
