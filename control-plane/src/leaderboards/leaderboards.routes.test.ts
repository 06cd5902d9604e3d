import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { call, registerUser, testApp } from '../test-support/app.js';
import { httpResult, roundAt, seedMonitor, seedNodes } from '../checks/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { decidePass } from '../checks/decide.js';

/*
 * Leaderboards through the app on a real database: leaderboard monitors with real check results,
 * vendors' opt-outs (limits, per-IP rate limit, decisions e-mailed through a real SMTP server),
 * a month's report through every state move and every refused one, its signed PDF and errata
 * notice verified by POST /v1/attest/verify, the audit log, and the admin boundary of every
 * admin route (403 for other accounts, 401 anonymous).
 */

type Requester = { request(path: string, init?: RequestInit): Response | Promise<Response> };

async function download(app: Requester, path: string, token?: string): Promise<{ status: number; bytes: ArrayBuffer; type: string | null }> {
  const res = await app.request(path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, bytes: await res.arrayBuffer(), type: res.headers.get('content-type') };
}

/** The text of a PDF, read by poppler's pdftotext (as the compliance report test does). */
async function pdfText(t: { teardown(fn: () => unknown): void }, bytes: ArrayBuffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-pdf-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'r.pdf'), Buffer.from(bytes));
  return (await promisify(execFile)('pdftotext', ['-layout', join(dir, 'r.pdf'), '-'])).stdout;
}

async function verify(app: Requester, bytes: ArrayBuffer): Promise<any> {
  return (await app.request('/v1/attest/verify', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: bytes })).json();
}

t.test('leaderboards: monitors, opt-outs, report states, signed PDF and errata, admin boundary', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app, sql, deps } = await testApp(t, { config: { smtp_url: smtp.smtp_url, leaderboard_opt_out_rate_limit: 3 }, delivery: true });
  const admin = await registerUser(app); // the first account is the deployment's administrator
  const alice = await registerUser(app);
  const asAdmin = (method: string, path: string, body?: unknown) => call(app, method, path, { token: admin.access_token, ...(body === undefined ? {} : { body }) });

  // Three vendors' monitors on nodes in two countries: Alpha always up and fast, Beta down in one round, Gamma opts out.
  const nodes = await seedNodes(sql, 2, ['DE', 'US']);
  const [alpha, beta, gamma] = await Promise.all([0, 1, 2].map(() => seedMonitor(sql, { user_id: alice.user_id, nodes, interval_s: 60 })));
  // Rounds are placed from one instant: a round boundary passing while the test runs moves nothing.
  const now = Date.now();
  for (const node of nodes) {
    await deps.results.ingest(node, [-5, -4, -3, -2].map((k) => httpResult(alpha!.monitor_id, roundAt(alpha!, k, now), { success: true, response_ms: 40 })));
    await deps.results.ingest(node, [-5, -4, -3, -2].map((k) => httpResult(beta!.monitor_id, roundAt(beta!, k, now), { success: k !== -3, response_ms: 90 })));
    await deps.results.ingest(node, [-5, -4, -3, -2].map((k) => httpResult(gamma!.monitor_id, roundAt(gamma!, k, now), { success: true, response_ms: 20 })));
  }
  // Judge the rounds (the verdict job's pass, run here until nothing is left).
  while ((await decidePass({ sql })).rounds > 0);
  const when = new Date(roundAt(alpha!, -3, now));
  const period = { period_year: when.getUTCFullYear(), period_month: when.getUTCMonth() + 1 };

  t.test('the admin boundary: every admin route refuses other accounts (403) and anonymous callers (401)', async (t) => {
    const lb = `lb_${'0'.repeat(26)}`;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v1/admin/leaderboards'], ['POST', '/v1/admin/leaderboards', period], ['GET', `/v1/admin/leaderboards/${lb}`],
      ['DELETE', `/v1/admin/leaderboards/${lb}`], ['POST', `/v1/admin/leaderboards/${lb}/recompute`],
      ['POST', `/v1/admin/leaderboards/${lb}/status`, { status: 'reviewing' }], ['POST', `/v1/admin/leaderboards/${lb}/errata`, { reason: 'x' }],
      ['GET', `/v1/admin/leaderboards/${lb}/pdf`], ['GET', '/v1/admin/leaderboard-monitors'],
      ['PUT', `/v1/admin/leaderboard-monitors/${alpha!.monitor_id}`, { vendor_name: 'Evil', category: 'CDN' }],
      ['DELETE', `/v1/admin/leaderboard-monitors/${alpha!.monitor_id}`], ['GET', '/v1/admin/leaderboard-opt-outs'],
      ['POST', `/v1/admin/leaderboard-opt-outs/lbo_${'0'.repeat(26)}/decision`, { status: 'approved', decision_reason: 'x' }],
    ];
    for (const [method, path, body] of routes) {
      const other = await call(app, method, path, { token: alice.access_token, ...(body === undefined ? {} : { body }) });
      t.equal(other.status, 403, `${method} ${path} as another account`);
      t.equal(other.body.error.code, 'FORBIDDEN');
      t.equal((await call(app, method, path, body === undefined ? {} : { body })).status, 401, `${method} ${path} anonymous`);
    }
    t.equal((await sql`SELECT count(*)::int AS n FROM leaderboard_monitors`)[0]!.n, 0, 'refused calls changed nothing');
    t.equal((await sql`SELECT count(*)::int AS n FROM leaderboard_reports`)[0]!.n, 0);
  });

  t.test('leaderboard monitors: mark, change, refuse', async (t) => {
    let r = await asAdmin('PUT', `/v1/admin/leaderboard-monitors/${alpha!.monitor_id}`, { vendor_name: 'Alpha CDN', category: 'DNS hosting' });
    t.equal(r.status, 200, JSON.stringify(r.body));
    r = await asAdmin('PUT', `/v1/admin/leaderboard-monitors/${alpha!.monitor_id}`, { vendor_name: 'Alpha CDN', category: 'CDN' });
    t.match(r.body.data, { monitor_id: alpha!.monitor_id, vendor_name: 'Alpha CDN', category: 'CDN', type: 'http' });
    await asAdmin('PUT', `/v1/admin/leaderboard-monitors/${beta!.monitor_id}`, { vendor_name: 'Beta CDN', category: 'CDN' });
    await asAdmin('PUT', `/v1/admin/leaderboard-monitors/${gamma!.monitor_id}`, { vendor_name: 'Gamma Edge', category: 'CDN' });
    t.equal((await asAdmin('PUT', `/v1/admin/leaderboard-monitors/${newId('monitor')}`, { vendor_name: 'X', category: 'CDN' })).status, 404);
    t.equal((await asAdmin('PUT', `/v1/admin/leaderboard-monitors/${beta!.monitor_id}`, { vendor_name: '', category: 'CDN' })).status, 400);
    t.equal((await asAdmin('PUT', `/v1/admin/leaderboard-monitors/${beta!.monitor_id}`, { vendor_name: 'B', category: 'CDN', rank: 1 })).status, 400);
    r = await asAdmin('GET', '/v1/admin/leaderboard-monitors');
    t.same(r.body.data.items.map((m: any) => m.vendor_name), ['Alpha CDN', 'Beta CDN', 'Gamma Edge']);
    const extra = await seedMonitor(sql, { nodes: [] });
    await asAdmin('PUT', `/v1/admin/leaderboard-monitors/${extra.monitor_id}`, { vendor_name: 'Temp', category: 'CDN' });
    t.equal((await asAdmin('DELETE', `/v1/admin/leaderboard-monitors/${extra.monitor_id}`)).status, 200);
    t.equal((await asAdmin('DELETE', `/v1/admin/leaderboard-monitors/${extra.monitor_id}`)).status, 404, 'no longer marked');
  });

  const optOuts: Record<string, string> = {};
  t.test('opt-out requests: fields, limits, per-IP rate limit', async (t) => {
    const base = { vendor_name: 'Gamma Edge', applicant_email: 'legal@gamma.example', identity_proof_url: 'https://gamma.example/proof.pdf' };
    for (const [body, field] of [
      [{ ...base, reason: 'x'.repeat(5001) }, 'reason'],
      [{ vendor_name: 'Gamma Edge', applicant_email: 'legal@gamma.example' }, 'identity_proof_url'],
      [{ ...base, identity_proof_url: 'javascript:alert(1)' }, 'identity_proof_url'],
      [{ ...base, applicant_email: 'not-mail' }, 'applicant_email'],
      [{ ...base, contact_phone: 'call me' }, 'contact_phone'],
      [{ ...base, vendor_name: '' }, 'vendor_name'],
      [{ ...base, status: 'approved' }, ''],
    ] as const) {
      const r = await call(app, 'POST', '/v1/leaderboards/opt-outs', { body });
      t.equal(r.status, 400, field);
      t.equal(r.body.error.code, 'VALIDATION_FAILED');
      if (field) t.ok(JSON.stringify(r.body.error.details).includes(field), `names ${field}`);
    }
    let r = await call(app, 'POST', '/v1/leaderboards/opt-outs', { body: { ...base, reason: 'r'.repeat(5000), applicant_organization: 'Gamma Ltd', contact_phone: '+1 (555) 010-0000' } });
    t.equal(r.status, 201, JSON.stringify(r.body));
    t.match(r.body.data, { id: /^lbo_/, status: 'pending', decided_at: null, decision_reason: null, applicant_organization: 'Gamma Ltd' });
    t.equal(r.body.data.reason.length, 5000, 'a reason of exactly 5000 characters is kept whole');
    optOuts.gamma = r.body.data.id;
    r = await call(app, 'POST', '/v1/leaderboards/opt-outs', { body: { ...base, vendor_name: 'Beta CDN', applicant_email: 'ceo@beta.example' } });
    optOuts.beta = r.body.data.id;
    r = await call(app, 'POST', '/v1/leaderboards/opt-outs', { body: { ...base, vendor_name: 'Nobody', applicant_email: 'x@nobody.example' } });
    t.equal(r.status, 201);
    r = await call(app, 'POST', '/v1/leaderboards/opt-outs', { body: base });
    t.equal(r.status, 429, 'the fourth request from one address in the window');
    t.equal(r.body.error.code, 'RATE_LIMIT_EXCEEDED');
    t.ok(Number(r.headers.get('retry-after')) >= 1);
    t.equal(r.headers.get('x-ratelimit-limit'), '3');
    t.equal((await sql`SELECT count(*)::int AS n FROM leaderboard_opt_outs`)[0]!.n, 3, 'refused requests stored nothing');
  });

  t.test('opt-out decisions: once each, e-mailed to the applicant', async (t) => {
    let r = await asAdmin('GET', '/v1/admin/leaderboard-opt-outs?status=pending');
    t.equal(r.body.data.total, 3);
    r = await asAdmin('POST', `/v1/admin/leaderboard-opt-outs/${optOuts.gamma}/decision`, { status: 'approved', decision_reason: 'Identity confirmed by the proof document.' });
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.match(r.body.data, { status: 'approved', decision_reason: 'Identity confirmed by the proof document.', decided_at: /Z$/ });
    r = await asAdmin('POST', `/v1/admin/leaderboard-opt-outs/${optOuts.gamma}/decision`, { status: 'rejected', decision_reason: 'changed my mind' });
    t.equal(r.status, 409, 'decided once');
    r = await asAdmin('POST', `/v1/admin/leaderboard-opt-outs/${optOuts.beta}/decision`, { status: 'maybe', decision_reason: 'x' });
    t.equal(r.status, 400);
    r = await asAdmin('POST', `/v1/admin/leaderboard-opt-outs/${optOuts.beta}/decision`, { status: 'rejected', decision_reason: '' });
    t.equal(r.status, 400, 'a reason is required');
    r = await asAdmin('POST', `/v1/admin/leaderboard-opt-outs/${optOuts.beta}/decision`, { status: 'rejected', decision_reason: 'The proof does not show you act for Beta.' });
    t.equal(r.body.data.status, 'rejected');
    t.equal((await asAdmin('POST', `/v1/admin/leaderboard-opt-outs/${newId('leaderboard_opt_out')}/decision`, { status: 'approved', decision_reason: 'x' })).status, 404);
    // The applicants' mails, among the accounts' verification mails: wait (generously) until both are in.
    const to = (addr: string) => smtp.messages.find((m) => m.to.includes(addr));
    for (let n = 1; !(to('legal@gamma.example') && to('ceo@beta.example')); n++) await smtp.waitFor(n, 60_000);
    const mails = smtp.messages;
    const gammaMail = mails.find((m) => m.to.includes('legal@gamma.example'))!;
    t.match(gammaMail.parsed.subject, /Gamma Edge was approved/);
    t.match(gammaMail.parsed.text, /Identity confirmed by the proof document/);
    t.match(mails.find((m) => m.to.includes('ceo@beta.example'))!.parsed.subject, /was rejected/);
  });

  let id = '';
  t.test('a month\'s report: computed figures, refused moves, review, publish, errata, archive', async (t) => {
    let r = await asAdmin('POST', '/v1/admin/leaderboards', { period_year: 2099, period_month: 1 });
    t.equal(r.status, 400, 'a month that has not begun');
    r = await asAdmin('POST', '/v1/admin/leaderboards', { ...period, period_month: 13 });
    t.equal(r.status, 400);
    r = await asAdmin('POST', '/v1/admin/leaderboards', period);
    t.equal(r.status, 201, JSON.stringify(r.body));
    const draft = r.body.data;
    id = draft.id;
    t.match(draft, { id: /^lb_/, status: 'draft', ...period, methodology_version: 'lb-2026.1', pdf_url: null, published_at: null, excluded_vendors: ['Gamma Edge'], verdict_report_id: null, errata_pdf_url: null });
    t.same(draft.entries.map((e: any) => [e.rank, e.category, e.vendor_name]), [[1, 'CDN', 'Alpha CDN'], [2, 'CDN', 'Beta CDN']], 'ranked by uptime; the opted-out vendor left out');
    const [a, b] = draft.entries;
    t.equal(a.uptime, 1);
    t.ok(b.uptime < 1, `Beta's down round counts (${b.uptime})`);
    t.equal(a.checks, 8);
    t.ok(Math.abs(a.p50_ms - 40) <= 1 && Math.abs(b.p95_ms - 90) <= 2, 'percentiles of the checks');
    t.same(a.regions.map((g: any) => [g.country, g.checks]), [['DE', 4], ['US', 4]], 'latency by the nodes\' country');
    t.equal((await asAdmin('POST', '/v1/admin/leaderboards', period)).status, 409, 'one live report per month');

    // Not public while a draft.
    t.same((await call(app, 'GET', '/v1/leaderboards')).body.data.items, []);
    t.equal((await call(app, 'GET', `/v1/leaderboards/${id}`)).status, 404);
    t.equal((await asAdmin('GET', `/v1/admin/leaderboards/${id}/pdf`)).status, 409, 'a draft has no PDF');

    for (const to of ['published', 'archived', 'draft']) {
      r = await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: to });
      t.equal(r.status, 409, `draft → ${to} refused`);
      t.same(r.body.error.details.allowed, ['reviewing']);
    }
    t.equal((await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: 'gone' })).status, 400);
    t.equal((await asAdmin('POST', `/v1/admin/leaderboards/${id}/recompute`)).status, 200, 'a draft is recomputed');

    r = await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: 'reviewing' });
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.match(r.body.data, { status: 'reviewing', pdf_url: new RegExp(`/v1/admin/leaderboards/${id}/pdf$`), content_hash: /^sha256:/ });
    let pdf = await download(app, `/v1/admin/leaderboards/${id}/pdf`, admin.access_token);
    t.equal(pdf.type, 'application/pdf');
    t.match(await verify(app, pdf.bytes), { valid: true, content_hash: r.body.data.content_hash });
    t.equal((await call(app, 'GET', `/v1/leaderboards/${id}/pdf`)).status, 404, 'not public in review');
    t.equal((await asAdmin('POST', `/v1/admin/leaderboards/${id}/recompute`)).status, 409, 'only drafts are recomputed');
    for (const to of ['archived', 'reviewing']) t.equal((await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: to })).status, 409, `reviewing → ${to} refused`);
    t.equal((await asAdmin('DELETE', `/v1/admin/leaderboards/${id}`)).status, 409, 'only drafts are deleted');

    r = await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: 'draft' });
    t.match(r.body.data, { status: 'draft', pdf_url: null, content_hash: null }, 'back to draft drops the PDF');
    r = await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: 'reviewing' });
    // Each signing keeps its own attestation record: the second review's is not lost to the first's.
    const signings = await sql<{ external_id: string; status: string; retry_count: number }[]>`
      SELECT external_id, status, retry_count FROM attestation_records WHERE report_id = ${id} AND action = 'signed' ORDER BY created_at, id`;
    t.equal(signings.length, 2, 'two reviews, two signed records');
    t.same(signings.map((s) => [s.status, s.retry_count]), [['success', 0], ['success', 0]]);
    t.equal(signings[1]!.external_id, r.body.data.content_hash, 'the second record is the document now in review');
    t.not(signings[0]!.external_id, signings[1]!.external_id);
    t.equal((await asAdmin('POST', `/v1/admin/leaderboards/${id}/errata`, { reason: 'early' })).status, 409, 'errata only once published');
    r = await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: 'published' });
    t.match(r.body.data, { status: 'published', published_at: /Z$/, pdf_url: new RegExp(`/v1/leaderboards/${id}/pdf$`) });
    for (const to of ['draft', 'reviewing', 'published']) t.equal((await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: to })).status, 409, `published → ${to} refused`);
    r = await asAdmin('DELETE', `/v1/admin/leaderboards/${id}`);
    t.equal(r.status, 409, 'a published report is never deleted');
    t.match(r.body.error.message, /errata/);

    // Public now: list, detail, the signed PDF.
    r = await call(app, 'GET', '/v1/leaderboards');
    t.match(r.body.data, { total: 1, page: 1, page_size: 20, has_more: false });
    t.equal(r.body.data.items[0].id, id);
    r = await call(app, 'GET', `/v1/leaderboards/${id}`);
    t.equal(r.status, 200);
    t.equal(r.body.data.entries.length, 2);
    pdf = await download(app, `/v1/leaderboards/${id}/pdf`);
    t.equal(pdf.status, 200);
    t.equal((await verify(app, pdf.bytes)).valid, true);
    const text = await pdfText(t, pdf.bytes);
    t.match(text, /Vendor leaderboard: \w+ \d{4}/, 'the period');
    t.match(text, /1\s+Alpha CDN\s+100\.00 %/, 'the ranked row with its uptime');
    t.match(text, /Excluded vendors \(opt-out\)\s+Gamma Edge/, 'the excluded vendor');
    t.match(text, 'lb-2026.1', 'the methodology version');
    t.equal((await call(app, 'GET', `/v1/leaderboards/${id}/errata/pdf`)).status, 404, 'no errata yet');

    // Errata: a signed notice beside the unchanged original.
    t.equal((await asAdmin('POST', `/v1/admin/leaderboards/${id}/errata`, { reason: 'e'.repeat(5001) })).status, 400);
    r = await asAdmin('POST', `/v1/admin/leaderboards/${id}/errata`, { reason: 'Beta CDN latency was measured against a misconfigured origin.' });
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.match(r.body.data, { status: 'published', errata_reason: 'Beta CDN latency was measured against a misconfigured origin.', errata_pdf_url: new RegExp(`/v1/leaderboards/${id}/errata/pdf$`) });
    const errata = await download(app, `/v1/leaderboards/${id}/errata/pdf`);
    t.equal(errata.status, 200);
    t.equal((await verify(app, errata.bytes)).valid, true);
    const errataText = await pdfText(t, errata.bytes);
    t.match(errataText, 'misconfigured origin', 'the reason');
    t.match(errataText, id, 'the report it corrects');
    t.same(Buffer.from((await download(app, `/v1/leaderboards/${id}/pdf`)).bytes), Buffer.from(pdf.bytes), 'the original PDF is unchanged');
    t.equal((await asAdmin('POST', `/v1/admin/leaderboards/${id}/errata`, { reason: 'again' })).status, 409, 'one errata notice');

    r = await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: 'archived' });
    t.equal(r.body.data.status, 'archived');
    for (const to of ['draft', 'reviewing', 'published']) t.equal((await asAdmin('POST', `/v1/admin/leaderboards/${id}/status`, { status: to })).status, 409, `archived → ${to} refused`);
    t.equal((await asAdmin('DELETE', `/v1/admin/leaderboards/${id}`)).status, 409);
    t.equal((await call(app, 'GET', `/v1/leaderboards/${id}`)).body.data.status, 'archived', 'archived reports stay public');

    // An archived month leaves room for a new draft, which can be deleted.
    r = await asAdmin('POST', '/v1/admin/leaderboards', period);
    t.equal(r.status, 201);
    t.equal((await asAdmin('DELETE', `/v1/admin/leaderboards/${r.body.data.id}`)).status, 200);
    t.equal((await asAdmin('GET', `/v1/admin/leaderboards/${r.body.data.id}`)).status, 404);
    r = await asAdmin('GET', '/v1/admin/leaderboards?status=archived');
    t.same(r.body.data.items.map((x: any) => x.id), [id]);
  });

  t.test('every change is in the admin audit log', async (t) => {
    const rows = await sql<{ action: string; actor_user_id: string }[]>`SELECT action, actor_user_id FROM admin_audit WHERE action LIKE 'leaderboard%' ORDER BY id`;
    const actions = new Set(rows.map((x) => x.action));
    for (const a of ['leaderboard_monitor.set', 'leaderboard_monitor.delete', 'leaderboard_opt_out.decide', 'leaderboard.create', 'leaderboard.recompute', 'leaderboard.status', 'leaderboard.errata', 'leaderboard.delete']) t.ok(actions.has(a), a);
    t.ok(rows.every((x) => x.actor_user_id === admin.user_id));
  });
});
