import t from 'tap';
import { HTTP_HEADERS_SET_BY_SENDER, httpHeadersFault, httpHeadersSchema, isSecretHeader } from './http-headers.js';
import { LIMITS } from './limits.js';
import { fieldIssues } from './parse.js';
import { httpParamsSchema } from './probe/params.js';
import { parseMonitorConfig } from './monitors/config.js';
import { smsChannelConfigSchema } from './alerting/channel-configs.js';

const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v']));

t.test('httpHeadersFault: names, values and count (RFC 9110 sections 5.1, 5.5, 5.6.2)', async (t) => {
  // [case, headers, expected { name, message pattern } or null]
  const cases: Array<[string, Record<string, string>, { name: string | null; message: RegExp } | null]> = [
    ['none', {}, null],
    ['ordinary', { Authorization: 'Bearer abc.def', 'X-Api-Key': 'k', Accept: 'application/json' }, null],
    ['every token character', { "!#$%&'*+.^_`|~-09AZaz": 'v' }, null],
    ['tab and spaces inside a value', { 'X-A': 'a\tb c' }, null],
    ['empty value', { 'X-A': '' }, null],
    ['Latin-1 obs-text', { 'X-A': 'café' }, null],
    ['longest name and value', { ['N'.repeat(LIMITS.http_header_name_max_chars)]: 'v'.repeat(LIMITS.http_header_value_max_chars) }, null],
    ['most headers', many(LIMITS.http_headers_max), null],
    ['CRLF injection', { 'X-Foo': 'a\r\nInjected: 1' }, { name: 'X-Foo', message: /CR or LF/ }],
    ['bare LF', { 'X-Foo': 'a\nb' }, { name: 'X-Foo', message: /CR or LF/ }],
    ['bare CR', { 'X-Foo': 'a\rb' }, { name: 'X-Foo', message: /CR or LF/ }],
    ['NUL', { 'X-Foo': 'a\u0000b' }, { name: 'X-Foo', message: /NUL/ }],
    ['other control character', { 'X-Foo': 'a\u0007b' }, { name: 'X-Foo', message: /U\+0007/ }],
    ['DEL', { 'X-Foo': 'a\u007fb' }, { name: 'X-Foo', message: /U\+007F/ }],
    ['beyond Latin-1', { 'X-Foo': '中文' }, { name: 'X-Foo', message: /ASCII or Latin-1/ }],
    ['lone surrogate', { 'X-Foo': '\ud800' }, { name: 'X-Foo', message: /ASCII or Latin-1/ }],
    ['value too long', { 'X-Foo': 'v'.repeat(LIMITS.http_header_value_max_chars + 1) }, { name: 'X-Foo', message: /longer than 8192/ }],
    ['space in a name', { 'X Foo': 'v' }, { name: 'X Foo', message: /not an HTTP header name/ }],
    ['colon in a name', { 'X-Foo:': 'v' }, { name: 'X-Foo:', message: /not an HTTP header name/ }],
    ['CRLF in a name', { 'X-Foo\r\nY': 'v' }, { name: 'X-Foo\r\nY', message: /not an HTTP header name/ }],
    ['HTTP/2 pseudo-header', { ':authority': 'v' }, { name: ':authority', message: /not an HTTP header name/ }],
    ['non-ASCII name', { 'X-Café': 'v' }, { name: 'X-Café', message: /not an HTTP header name/ }],
    ['empty name', { '': 'v' }, { name: '', message: /empty/ }],
    ['name too long', { ['N'.repeat(LIMITS.http_header_name_max_chars + 1)]: 'v' }, { name: 'N'.repeat(LIMITS.http_header_name_max_chars + 1), message: /longer than 256/ }],
    ['the same name twice', { 'X-Token': 'a', 'x-token': 'b' }, { name: 'x-token', message: /same header as X-Token/ }],
    ['too many', many(LIMITS.http_headers_max + 1), { name: null, message: /at most 32 headers/ }],
    ...[...HTTP_HEADERS_SET_BY_SENDER].map((n): [string, Record<string, string>, { name: string; message: RegExp }] => {
      const name = n.replace(/(^|-)\w/g, (c) => c.toUpperCase());
      return [`${name} is set by the sender`, { [name]: 'v' }, { name, message: /set by the sender/ }];
    }),
  ];
  for (const [name, headers, want] of cases) {
    const got = httpHeadersFault(headers);
    if (want === null) t.equal(got, null, name);
    else t.match(got, want, name);
  }
});

t.test('masks stand for a stored secret only with masks on, and only on a secret header', async (t) => {
  const cases: Array<[string, Record<string, string>, boolean, boolean]> = [
    // [case, headers, valid without masks, valid with masks]
    ['a long secret\'s mask', { Authorization: '••••abcd' }, false, true],
    ['a short secret\'s mask', { Cookie: '••••••••' }, false, true],
    ['a mask holding CR/LF', { Authorization: '••••\r\nX: y' }, false, false],
    ['a mask on a public header is a value', { Accept: '••••abcd' }, false, false],
  ];
  for (const [name, headers, plain, masked] of cases) {
    t.equal(httpHeadersFault(headers) === null, plain, `${name}: without masks`);
    t.equal(httpHeadersFault(headers, { masks: true }) === null, masked, `${name}: with masks`);
  }
  t.ok(isSecretHeader('X-Api-Key'));
  t.notOk(isSecretHeader('User-Agent'));
});

t.test('one rule for probe params, monitor configs and SMS channels; issues name the header', async (t) => {
  const bad = { 'X-Foo': 'a\r\nInjected: 1' };
  const issues = (r: { success: boolean; error?: unknown }) => (r.success ? [] : fieldIssues(r.error as never));
  t.match(issues(httpParamsSchema.safeParse({ headers: bad })), [{ path: 'headers.X-Foo', message: /CR or LF/ }], 'probe params');
  t.match(issues(httpParamsSchema.safeParse({ headers: { 'X Foo:': 'v' } })), [{ path: 'headers.X Foo:', message: /not an HTTP header name/ }]);
  t.match(issues(httpParamsSchema.safeParse({ headers: many(33) })), [{ path: 'headers', message: /at most 32/ }], 'the count names the map');
  for (const type of ['http', 'https', 'keyword', 'llm_endpoint', 'tool_api', 'rag'] as const) {
    const config = { headers: bad, ...(type === 'keyword' ? { keyword: 'ok' } : {}) };
    const r = parseMonitorConfig(type, config);
    t.match(r, { ok: false, issues: [{ path: 'config.headers.X-Foo', message: /CR or LF/ }] }, `${type} monitor`);
    t.equal(parseMonitorConfig(type, { ...config, headers: { Authorization: '••••abcd' } }).ok, true, `${type} monitor takes a mask back`);
  }
  const sms = { url: 'https://sms.example.com/send', phone_numbers: ['+8613800000000'] };
  t.match(issues(smsChannelConfigSchema.safeParse({ ...sms, headers: bad })), [{ path: 'headers.X-Foo', message: /CR or LF/ }], 'sms channel');
  t.match(issues(smsChannelConfigSchema.safeParse({ ...sms, headers: { Host: 'evil.example' } })), [{ path: 'headers.Host', message: /set by the sender/ }]);
  t.match(issues(smsChannelConfigSchema.safeParse({ ...sms, headers: { Authorization: '••••abcd' } })), [{ path: 'headers.Authorization' }], 'channels take no • masks (theirs are ****)');
  t.same(httpHeadersSchema().parse({ 'X-A': '1' }), { 'X-A': '1' });
});
