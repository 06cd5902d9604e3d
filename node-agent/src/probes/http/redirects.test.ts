import t from 'tap';
import { nextHop, parseTargetUrl, type HopRequest } from './redirects.js';

const post = (url: string): HopRequest => ({
  url: new URL(url), method: 'POST', body: 'x',
  headers: { Authorization: 'Bearer s', Cookie: 'c=1', 'Content-Type': 'text/plain', 'X-Keep': '1' },
});

t.test('method and body per status (Fetch standard)', async (t) => {
  const table: [number, string, string | undefined][] = [
    [301, 'GET', undefined], [302, 'GET', undefined], [303, 'GET', undefined], [307, 'POST', 'x'], [308, 'POST', 'x'],
  ];
  for (const [status, method, body] of table) {
    const next = nextHop(post('http://a.test/p'), status, '/q')!;
    t.equal(next.method, method, `${status} method`);
    t.equal(next.body, body, `${status} body`);
    t.equal(next.url.href, 'http://a.test/q');
    t.equal('Content-Type' in next.headers, body !== undefined, `${status} content-type follows the body`);
  }
  const head = nextHop({ ...post('http://a.test/'), method: 'HEAD', body: undefined }, 303, '/x')!;
  t.equal(head.method, 'HEAD', '303 keeps HEAD');
});

t.test('credentials stay on their origin', async (t) => {
  const same = nextHop(post('http://a.test/'), 307, 'http://a.test/other')!;
  t.same(Object.keys(same.headers).sort(), ['Authorization', 'Content-Type', 'Cookie', 'X-Keep']);
  const cross = nextHop(post('http://a.test/'), 307, 'https://b.test/')!;
  t.same(Object.keys(cross.headers).sort(), ['Content-Type', 'X-Keep']);
});

t.test('unusable locations and targets', async (t) => {
  t.equal(nextHop(post('http://a.test/'), 302, 'ftp://a.test/'), null);
  t.equal(nextHop(post('http://a.test/'), 302, 'http://[bad'), null);
  t.equal(parseTargetUrl('example.test/x')?.href, 'http://example.test/x');
  t.equal(parseTargetUrl('https://example.test/#frag')?.href, 'https://example.test/');
  t.equal(parseTargetUrl('ftp://example.test/'), null);
  t.equal(parseTargetUrl('http://'), null);
});
