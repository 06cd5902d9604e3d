import t from 'tap';
import {
  MONITOR_CONFIGS, MONITOR_TYPES, heartbeatIntervalS, monitorCreateSchema, nextHeartbeatDue, parseExpectedStatus,
  parseMonitorConfig, statusMatches, type HeartbeatMonitorConfig,
} from '../index.js';

const issuesOf = (type: (typeof MONITOR_TYPES)[number], raw: unknown) => {
  const r = parseMonitorConfig(type, raw);
  return r.ok ? [] : r.issues.map((i) => i.path);
};

t.test('every type has a strict config schema; {} and null give the defaults (keyword needs its keyword)', async (t) => {
  t.same(Object.keys(MONITOR_CONFIGS).sort(), [...MONITOR_TYPES].sort());
  for (const type of MONITOR_TYPES) {
    const raw = type === 'keyword' ? { keyword: 'ok' } : {};
    const a = parseMonitorConfig(type, raw);
    t.ok(a.ok, type);
    if (type !== 'keyword') t.same(parseMonitorConfig(type, null), a, `${type}: null is {}`);
    t.ok(issuesOf(type, { ...raw, no_such_field: 1 }).length > 0, `${type}: unknown fields refused`);
    if (a.ok) t.same(parseMonitorConfig(type, a.config), a, `${type}: a stored config parses to itself`);
  }
});

t.test('defaults and bounds', async (t) => {
  const http = parseMonitorConfig('http', {});
  t.same(http.ok && http.config, { method: 'GET', timeout_ms: 10000, headers: {}, follow_redirects: true, ip_version: 'auto', expected_status: '200-399', assertions: [] });
  const llm = parseMonitorConfig('llm_endpoint', {});
  t.match(llm.ok && llm.config, { method: 'POST', timeout_ms: 30000, expected_status: '200-299', expected_fields: [] });
  t.same(issuesOf('llm_endpoint', { timeout_ms: 120_000 }), []);
  t.same(issuesOf('http', { timeout_ms: 30_001 }), ['config.timeout_ms'], 'the HTTP probe bound applies');
  t.same(issuesOf('ping', { count: 50 }), []);
  t.same(issuesOf('ping', { count: 51 }), ['config.count']);
  t.same(issuesOf('traceroute', { max_hops: 64 }), []);
  const ssl = parseMonitorConfig('ssl_expiry', {});
  t.match(ssl.ok && ssl.config, { warn_days: 14, critical_days: 3 });
  t.same(issuesOf('ssl_expiry', { warn_days: 3, critical_days: 3 }), []);
  t.same(issuesOf('domain_expiry', { critical_days: 31 }), ['config.critical_days'], 'critical above the default warn_days');
  const rbl = parseMonitorConfig('rbl', { zones: ['ZEN.spamhaus.org', 'zen.spamhaus.org ', 'bl.spamcop.net'] });
  t.same(rbl.ok && rbl.config.zones, ['zen.spamhaus.org', 'bl.spamcop.net'], 'zones lower-cased and de-duplicated');
  t.same(issuesOf('rbl', { zones: [] }), ['config.zones']);
  const browser = parseMonitorConfig('browser', { viewport: { width: 5000, height: 1 } });
  t.same(browser.ok && browser.config.viewport, { width: 3840, height: 240 }, 'viewport clamped');
  const small = parseMonitorConfig('browser', { viewport: { width: 319 } });
  t.same(small.ok && small.config.viewport, { width: 320, height: 768 });
  t.same(issuesOf('browser', { load_budget_ms: -1 }), ['config.load_budget_ms']);
  t.same(issuesOf('browser', { assertions: [{ kind: 'load_under_ms', value: 'fast' }] }), ['config.assertions[0].value']);
  t.same(issuesOf('browser', { assertions: [{ kind: 'renderable', selector: 'body' }] }), ['config.assertions[0].selector']);
  t.same(issuesOf('browser', { assertions: [{ kind: 'text_present', value: 'Hello' }, { kind: 'element_present', selector: '#a' }] }), []);
});

t.test('assertions: operators per type, values per operator', async (t) => {
  const ok = [
    { type: 'status_code', op: 'in', value: [200, 204] },
    { type: 'response_time', op: 'lt', value: 500 },
    { type: 'body_contains', op: 'contains', value: 'ok' },
    { type: 'body_contains', op: 'ne', value: 'error' },
    { type: 'body_regex', op: 'regex', value: '^\\{"ok":true' },
    { type: 'json_path', path: '$.items[0].id', op: 'eq', value: 'a' },
    { type: 'json_path', path: '$.count', op: 'gte', value: -3 },
    { type: 'header_value', header: 'content-type', op: 'contains', value: 'json' },
    { type: 'ssl_days_remaining', op: 'gt', value: 14 },
  ];
  t.same(issuesOf('http', { assertions: ok }), []);
  const bad: Array<[unknown, string]> = [
    [{ type: 'status_code', op: 'regex', value: '2..' }, 'op'],
    [{ type: 'status_code', op: 'in', value: 200 }, 'value'],
    [{ type: 'response_time', op: 'lt', value: -1 }, 'value'],
    [{ type: 'body_regex', op: 'regex', value: '(' }, 'value'],
    [{ type: 'json_path', op: 'eq', value: 1 }, 'path'],
    [{ type: 'json_path', path: 'items', op: 'eq', value: 1 }, 'path'],
    [{ type: 'header_value', op: 'eq', value: 'x' }, 'header'],
    [{ type: 'status_code', op: 'eq', value: 200, header: 'x' }, 'header'],
    [{ type: 'body_contains', op: 'contains', value: '' }, 'value'],
    [{ type: 'mystery', op: 'eq', value: 1 }, 'type'],
  ];
  for (const [assertion, field] of bad) {
    const issues = issuesOf('https', { assertions: [assertion] });
    t.ok(issues.length > 0 && issues.every((p) => p === `config.assertions[0].${field}`), `${JSON.stringify(assertion)}: ${issues}`);
  }
  t.same(issuesOf('http', { assertions: Array(21).fill(ok[0]) }), ['config.assertions'], 'at most 20');
});

t.test('expected_status rules', async (t) => {
  t.same(parseExpectedStatus('200-299, 301'), [[200, 299], [301, 301]]);
  for (const bad of ['', '2xx', '99', '600', '300-200', '200-', '200,,201']) t.equal(parseExpectedStatus(bad), null, bad);
  t.ok(statusMatches('200-399', 302));
  t.notOk(statusMatches('200,204', 201));
  const num = parseMonitorConfig('http', { expected_status: 204 });
  t.equal(num.ok && num.config.expected_status, '204', 'a number becomes its rule');
  const spaced = parseMonitorConfig('http', { expected_status: ' 200 - 204 , 301' });
  t.equal(spaced.ok && spaced.config.expected_status, '200-204,301');
});

t.test('heartbeat schedules: a period or a cron expression in a time zone', async (t) => {
  const period = parseMonitorConfig('heartbeat', { period_s: 3600 });
  t.same(period.ok && period.config, { period_s: 3600, grace_s: 60 });
  const cron = parseMonitorConfig('heartbeat', { cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 0 });
  t.same(cron.ok && cron.config, { cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 0 });
  const utc = parseMonitorConfig('heartbeat', { cron: '@hourly' });
  t.same(utc.ok && utc.config, { cron: '@hourly', timezone: 'UTC', grace_s: 60 });
  t.same(issuesOf('heartbeat', { period_s: 59 }), ['config.period_s']);
  t.same(issuesOf('heartbeat', { cron: '* * * * * *' }), ['config.cron'], 'seconds are refused: five fields only');
  t.same(issuesOf('heartbeat', { cron: '0 0 31 2 *' }), ['config.cron'], 'a schedule that never fires');
  t.same(issuesOf('heartbeat', { cron: '0 3 * * *', timezone: 'Mars/Olympus' }), ['config.timezone']);
  t.same(issuesOf('heartbeat', { period_s: 60, cron: '@daily' }), ['config.cron']);
  t.same(issuesOf('heartbeat', { period_s: 60, timezone: 'UTC' }), ['config.timezone']);

  const from = new Date('2026-01-05T12:00:00Z'); // a Monday
  t.equal(heartbeatIntervalS({ period_s: 900, grace_s: 0 }, from), 900);
  t.equal(heartbeatIntervalS({ cron: '*/15 * * * *', timezone: 'UTC', grace_s: 0 }, from), 900);
  t.equal(heartbeatIntervalS({ cron: '0 3 * * 1-5', timezone: 'Europe/Paris', grace_s: 0 }, from), 86400, 'the shortest gap');
  const yearly: HeartbeatMonitorConfig = { cron: '0 0 1 1 *', timezone: 'UTC', grace_s: 0 };
  t.ok(heartbeatIntervalS(yearly, from) > 300 * 86400, 'a yearly schedule');
  // 03:00 Paris is 02:00Z in winter and 01:00Z after the switch to summer time (2026-03-29).
  t.equal(nextHeartbeatDue({ cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 0 }, new Date('2026-03-28T12:00:00Z'))?.toISOString(), '2026-03-29T01:00:00.000Z');
  t.equal(nextHeartbeatDue({ period_s: 60, grace_s: 0 }, from)?.toISOString(), '2026-01-05T12:01:00.000Z');
});

t.test('create request: tags lower-cased, de-duplicated and sorted; names trimmed and bounded', async (t) => {
  const r = monitorCreateSchema.parse({ name: '  API  ', type: 'http', tags: ['Prod', 'api', ' prod', 'API'] });
  t.equal(r.name, 'API');
  t.same(r.tags, ['api', 'prod']);
  t.notOk(monitorCreateSchema.safeParse({ name: '   ', type: 'http' }).success);
  t.notOk(monitorCreateSchema.safeParse({ name: 'x'.repeat(201), type: 'http' }).success);
  t.notOk(monitorCreateSchema.safeParse({ name: 'x', type: 'smtp' }).success);
  t.notOk(monitorCreateSchema.safeParse({ name: 'x', type: 'http', tags: Array(21).fill('a') }).success);
  t.notOk(monitorCreateSchema.safeParse({ name: 'x', type: 'http', node_count: -1 }).success);
  t.notOk(monitorCreateSchema.safeParse({ name: 'x', type: 'http', owner: 'me' }).success, 'unknown fields refused');
});
