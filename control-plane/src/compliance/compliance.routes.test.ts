import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PDFDocument } from 'pdf-lib';
import { newId } from '@vantage/shared-protocol';
import { call, registerUser, testApp } from '../test-support/app.js';
import { httpResult, roundAt, seedMonitor, seedNodes } from '../checks/test-support.js';
import { settleInvoice } from '../billing/payment-api.js';
import { isoWeek } from './periods.js';
import { runComplianceReports } from './report-job.js';

/*
 * Compliance subscriptions and reports through the app on a real database: tiers and their
 * quotas, checkout paid through billing → active, the report job run with a controlled clock at
 * the end of the period, the signed PDF read back (pdf-lib for its metadata, poppler's pdftotext
 * for its figures) and verified, cancel, and another account's ids as 404.
 */

const run = promisify(execFile);

t.test('compliance: subscribe, pay, scheduled signed report, cancel', async (t) => {
  const { app, sql, deps } = await testApp(t);
  await registerUser(app); // the first account is the deployment's administrator
  const alice = await registerUser(app);
  const bob = await registerUser(app);
  const nodes = await seedNodes(sql, 2);
  const m = await seedMonitor(sql, { user_id: alice.user_id, nodes, interval_s: 60 });
  for (const [i, node] of nodes.entries()) {
    await deps.results.ingest(node, [-5, -4, -3, -2].map((k) => httpResult(m.monitor_id, roundAt(m, k), { success: !(i === 0 && k === -4), response_ms: 50 })));
  }

  // Tier rules: a frequency the tier does not offer → 400; more monitors than the quota → 429; another's monitor → 404.
  let r = await call(app, 'POST', '/v1/compliance/subscriptions', { token: alice.access_token, body: { tier: 'starter', reports_frequency: 'weekly' } });
  t.equal(r.status, 400, JSON.stringify(r.body));
  r = await call(app, 'POST', '/v1/compliance/subscriptions', { token: alice.access_token, body: { tier: 'starter', monitor_ids: Array.from({ length: 51 }, () => newId('monitor')) } });
  t.equal(r.status, 429);
  t.equal(r.body.error.code, 'BILLING_QUOTA_EXCEEDED');
  r = await call(app, 'POST', '/v1/compliance/subscriptions', { token: bob.access_token, body: { tier: 'pro', monitor_ids: [m.monitor_id] } });
  t.equal(r.status, 404);
  t.equal((await sql`SELECT count(*)::int AS n FROM compliance_subscriptions`)[0]!.n, 0, 'refusals write nothing');

  // Pro: 200 monitors, weekly, 24 months, 5 free verdicts; incomplete until the checkout is paid.
  r = await call(app, 'POST', '/v1/compliance/subscriptions', { token: alice.access_token, body: { tier: 'pro', monitor_ids: [m.monitor_id], contact_company: 'ACME' } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const sub = r.body.data.subscription;
  t.match(sub, { id: /^cs_/, tier: 'pro', status: 'incomplete', monitors_quota: 200, reports_frequency: 'weekly', history_retention_months: 24, free_verdict_count: 5, free_verdict_used: 0, price_cny: 999 });
  t.ok(r.body.data.checkout_url.length > 0);
  r = await call(app, 'POST', '/v1/compliance/subscriptions', { token: alice.access_token, body: { tier: 'enterprise', reports_frequency: 'custom', custom_interval_days: 10 } });
  t.match(r.body.data.subscription, { monitors_quota: 1000, reports_frequency: 'custom', history_retention_months: 72, free_verdict_count: null });
  r = await call(app, 'POST', '/v1/compliance/subscriptions', { token: alice.access_token, body: { tier: 'starter' } });
  t.match(r.body.data.subscription, { monitors_quota: 50, reports_frequency: 'monthly', history_retention_months: 12, free_verdict_count: 0 });

  const [row] = await sql<{ charge_id: string }[]>`SELECT charge_id FROM compliance_subscriptions WHERE id = ${sub.id}`;
  const charge_id = row!.charge_id;
  await sql.begin((tx) => settleInvoice(tx, charge_id));
  r = await call(app, 'GET', `/v1/compliance/subscriptions/${sub.id}`, { token: alice.access_token });
  t.equal(r.body.data.status, 'active', 'paid checkout → active');
  const due = new Date(r.body.data.next_report_at);
  t.equal(due.getUTCDay(), 1, 'weekly reports are due on Monday 00:00 UTC');
  t.equal((await call(app, 'GET', `/v1/compliance/subscriptions/${sub.id}`, { token: bob.access_token })).status, 404);

  // Nothing before the period ends; at its end, one signed report of the period.
  t.equal(await runComplianceReports(deps, new Date(due.getTime() - 60_000)), 0);
  t.equal(await runComplianceReports(deps, new Date(due.getTime() + 60_000)), 1);
  t.equal(await runComplianceReports(deps, new Date(due.getTime() + 120_000)), 0, 'once per period');
  r = await call(app, 'GET', '/v1/compliance/reports', { token: alice.access_token });
  t.equal(r.body.data.length, 1);
  const report = r.body.data[0];
  const week = isoWeek(new Date(due.getTime() - 86_400_000));
  t.match(report, { id: /^cr_/, subscription_id: sub.id, report_type: 'observation_only', period_year: week.year, period_week: week.week, period_month: null, monitors_included: 1, tsa_provider: null });
  t.same((await call(app, 'GET', '/v1/compliance/reports', { token: bob.access_token })).body.data, []);
  const res = await app.request(report.pdf_url, { headers: { authorization: `Bearer ${alice.access_token}` } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/pdf');
  const pdf = Buffer.from(await res.arrayBuffer());
  t.equal((await app.request(report.pdf_url, { headers: { authorization: `Bearer ${bob.access_token}` } })).status, 404);

  // Read back: pdf-lib parses it; pdftotext finds the period and the figures.
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  t.equal(doc.getTitle(), `Vantage compliance report ${report.id}`);
  t.ok(doc.getPageCount() >= 1);
  const dir = await mkdtemp(join(tmpdir(), 'compliance-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'c.pdf'), pdf);
  const text = (await run('pdftotext', ['-layout', join(dir, 'c.pdf'), '-'])).stdout;
  t.ok(text.includes(`Compliance report: ${week.year} week ${week.week}`), 'the period');
  t.match(text, new RegExp(`${m.monitor_id}\\s+\\S+\\s+0\\s+8\\s+1`), 'summary: incidents, checks and failures of the period');
  t.match(text, new RegExp(`${nodes[0]}\\s+\\S+\\s+4\\s+1\\s+25\\.00 %`), 'per-node evidence');
  const verify = await app.request('/v1/attest/verify', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: pdf });
  t.match(await verify.json(), { valid: true, content_hash: report.content_hash });

  // Cancel: no more reports; twice is a conflict.
  r = await call(app, 'POST', `/v1/compliance/subscriptions/${sub.id}/cancel`, { token: bob.access_token });
  t.equal(r.status, 404);
  r = await call(app, 'POST', `/v1/compliance/subscriptions/${sub.id}/cancel`, { token: alice.access_token });
  t.match(r.body.data, { status: 'canceled', next_report_at: null });
  t.equal((await call(app, 'POST', `/v1/compliance/subscriptions/${sub.id}/cancel`, { token: alice.access_token })).status, 409);
  t.equal(await runComplianceReports(deps, new Date(due.getTime() + 8 * 86_400_000)), 0);
});
