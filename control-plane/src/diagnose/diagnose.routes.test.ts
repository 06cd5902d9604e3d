import t from 'tap';
import { diagnoseReportSchema } from '@vantage/shared-protocol';
import { testApp } from '../test-support/app.js';
import { addNode, nodeResult, recordingHub } from '../probes/test-support.js';

const ALL = ['http', 'ping', 'dns', 'tcp', 'traceroute', 'mtr', 'smtp', 'ntp', 'headers', 'speedtest'];

async function setup(t: Parameters<typeof testApp>[0]) {
  const hub = recordingHub();
  const app = await testApp(t, { hub: () => hub });
  return { ...app, hub };
}

async function call(app: Awaited<ReturnType<typeof testApp>>['app'], method: string, path: string, body?: unknown) {
  const res = await app.request(path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

t.test('bad diagnose requests change nothing', async (t) => {
  const { app, sql } = await setup(t);
  await addNode(sql, { country: 'DE', capabilities: ALL });
  const cases: Array<[string, unknown, number, string]> = [
    ['no target', {}, 400, 'VALIDATION_FAILED'],
    ['unknown scope', { target: '1.1.1.1', scope: ['smtp'] }, 400, 'VALIDATION_FAILED'],
    ['scope twice', { target: '1.1.1.1', scope: ['http', 'http'] }, 400, 'VALIDATION_FAILED'],
    ['empty scope', { target: '1.1.1.1', scope: [] }, 400, 'VALIDATION_FAILED'],
    ['not a host', { target: 'a b' }, 400, 'VALIDATION_FAILED'],
    ['private target', { target: '10.0.0.1', scope: ['ping'] }, 422, 'PROBE_TARGET_INVALID'],
  ];
  for (const [name, body, status, code] of cases) {
    const r = await call(app, 'POST', '/v1/diagnose', body);
    t.equal(r.status, status, `${name}: ${r.body.error?.message}`);
    t.equal(r.body.error?.code, code, name);
  }
  t.equal((await sql`SELECT count(*)::int AS n FROM diagnoses`)[0]!.n, 0, 'no run stored');
  for (const id of ['dg_01jd3k6w9z4q8r2t7v5x1y3b6c', 'nope']) {
    const r = await call(app, 'GET', `/v1/diagnose/${id}`);
    t.equal(r.status, 404, `unknown diagnose ${id}`);
    t.equal(r.body.error?.code, 'NOT_FOUND', 'the diagnose resource\'s not-found code, not a probe task\'s');
    t.same(r.body.error?.details, { resource: 'diagnose', id }, 'names the resource');
  }
});

t.test('one probe per scope; the report scores each section and weighs them', async (t) => {
  const { app, sql, hub, deps } = await setup(t);
  const node = await addNode(sql, { country: 'DE', capabilities: ALL });
  const created = await call(app, 'POST', '/v1/diagnose', { target: 'https://1.1.1.1/', node_id: node });
  t.equal(created.status, 202, JSON.stringify(created.body.error ?? ''));
  t.match(created.body.data, { id: /^dg_/, target: 'https://1.1.1.1/', status: 'running' });
  const checks = hub.sent.map((s) => s.message.check);
  t.same(checks.map((c) => [c.type, c.target]), [
    ['http', 'https://1.1.1.1/'], ['ping', '1.1.1.1'], ['traceroute', '1.1.1.1'], ['http', 'https://1.1.1.1/'], ['headers', 'https://1.1.1.1/'],
  ], 'dns is skipped for an IP literal; ssl is a GET of the https URL');

  const id = created.body.data.id;
  let r = await call(app, 'GET', `/v1/diagnose/${id}`);
  t.ok(diagnoseReportSchema.safeParse(r.body.data).success, 'matches diagnoseReportSchema');
  t.match(r.body.data, { status: 'running', overall_score: null, sections: { dns: { status: 'skipped', score: null } } });

  const cert = { subject: '1.1.1.1', issuer: 'CA', not_before: '2026-01-01T00:00:00.000Z', not_after: '2027-01-01T00:00:00.000Z', days_left: 20, san: [] };
  for (const [i, s] of hub.sent.entries()) {
    const type = s.message.check.type;
    const base = nodeResult(s.message.task_id, type, 10);
    if (i === 3) (base.output as any).certificate = cert; // the ssl scope's GET
    await deps.results.ingest(node, [base]);
  }
  r = await call(app, 'GET', `/v1/diagnose/${id}`);
  t.ok(diagnoseReportSchema.safeParse(r.body.data).success);
  const s = r.body.data.sections;
  t.equal(r.body.data.status, 'completed');
  t.match(s.http, { status: 'completed', score: 100, findings: [] });
  t.match(s.ping, { score: 100 });
  t.match(s.traceroute, { score: 100 });
  t.match(s.ssl, { score: 80, findings: ['certificate expires in 20 days'] });
  t.match(s.security_headers, { score: 50, findings: ['no_compression', 'no_cdn'] });
  t.equal(s.http.task_ids.length, 1);
  // (25·100 + 15·100 + 10·100 + 20·80 + 15·50) / (25 + 15 + 10 + 20 + 15), dns skipped
  t.equal(r.body.data.overall_score, Math.round((2500 + 1500 + 1000 + 1600 + 750) / 85));
});

t.test('scope narrows the run to the scopes asked', async (t) => {
  const { app, sql, hub } = await setup(t);
  await addNode(sql, { country: 'DE', capabilities: ALL });
  const r = await call(app, 'POST', '/v1/diagnose', { target: '1.1.1.1', scope: ['ssl', 'security_headers'] });
  t.equal(r.status, 202);
  t.same(hub.sent.map((x) => [x.message.check.type, x.message.check.target]), [['http', 'https://1.1.1.1/'], ['headers', 'https://1.1.1.1/']]);
  const report = await call(app, 'GET', `/v1/diagnose/${r.body.data.id}`);
  t.same(Object.keys(report.body.data.sections), ['ssl', 'security_headers']);
});
