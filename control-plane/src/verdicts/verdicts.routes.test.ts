import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { call, registerUser, testApp } from '../test-support/app.js';
import { httpResult, roundAt, seedMonitor, seedNodes } from '../checks/test-support.js';
import { settleInvoice } from '../billing/payment-api.js';
import { contentHash, readSeal, signedMessage, writeSeal } from '../attestation/seal.js';
import { runVerdictGeneration } from './generate.js';

/*
 * Verdict orders through the app on a real database: idempotency (key in the body or the header;
 * same body → same order, other body → 409), the target rule (422), both payment paths (a report
 * credit deducted at once; a charge paid through billing's settle → paid), generation by the
 * claimed job, the signed PDF verified by POST /v1/attest/verify and refused for each way it can
 * be wrong, a key rotation and a revocation between two reports, and the PDF rendered by pdftoppm.
 */

const run = promisify(execFile);
const HOUR = 3_600_000;

async function verify(app: any, bytes: Uint8Array) {
  const res = await app.request('/v1/attest/verify', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: bytes });
  return { status: res.status, body: await res.json() as any };
}

async function pdfOf(app: any, token: string, id: string): Promise<Buffer> {
  const res = await app.request(`/v1/verdict/orders/${id}/pdf`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`pdf ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

t.test('verdict orders: payment, generation, signing, verification, rotation', async (t) => {
  const adminEmail = `admin-${Date.now()}@example.test`;
  const { app, sql, deps } = await testApp(t, { config: { admin_emails: [adminEmail] } });
  // The first account of a deployment is its administrator; the others are not.
  const admin = await registerUser(app, adminEmail);
  const alice = await registerUser(app);
  const bob = await registerUser(app);
  await sql`UPDATE users SET email_verified = true WHERE id = ${admin.user_id}`;
  const now = Date.now();

  // Alice monitors https://example.com/ from two nodes; each node reported 5 rounds (one failed).
  const nodes = await seedNodes(sql, 2);
  const m = await seedMonitor(sql, { user_id: alice.user_id, nodes, interval_s: 60 });
  for (const [i, node] of nodes.entries()) {
    await deps.results.ingest(node, [-6, -5, -4, -3, -2].map((k) => httpResult(m.monitor_id, roundAt(m, k), { success: !(i === 1 && k === -3), response_ms: 100 + 20 * i })));
  }
  const window = { time_window_start: new Date(now - 2 * HOUR).toISOString(), time_window_end: new Date(now).toISOString() };
  const body = { template: 'uptime_sla', target: 'example.com', ...window, notes: 'contract 42' };

  // The target rule: not monitored or probed by the caller → 422 with a reason; nothing written.
  let r = await call(app, 'POST', '/v1/verdict/orders', { token: bob.access_token, body });
  t.equal(r.status, 422, JSON.stringify(r.body));
  t.equal(r.body.error.code, 'MONITOR_INVALID_TARGET');
  t.equal(r.body.error.details.reason, 'target_not_observed');
  // Bad windows and fields → 400.
  for (const bad of [{ ...body, time_window_end: body.time_window_start }, { ...body, template: 'nope' }, { ...body, extra: 1 }, { ...body, time_window_end: new Date(now + 10 * HOUR).toISOString() }]) {
    r = await call(app, 'POST', '/v1/verdict/orders', { token: alice.access_token, body: bad });
    t.equal(r.status, 400, JSON.stringify(r.body));
  }
  // report_credit asked for without a credit → 402.
  r = await call(app, 'POST', '/v1/verdict/orders', { token: alice.access_token, body: { ...body, payment_method: 'report_credit' } });
  t.equal(r.status, 402);
  t.equal(r.body.error.code, 'BILLING_INSUFFICIENT_CREDITS');
  t.equal((await sql`SELECT count(*)::int AS n FROM verdict_orders`)[0]!.n, 0, 'refusals write nothing');

  // Charge path with an Idempotency-Key header: pay_url, created; a replay answers the same order; another body 409.
  r = await call(app, 'POST', '/v1/verdict/orders', { token: alice.access_token, body, headers: { 'idempotency-key': 'order-1' } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const charged = r.body.data;
  t.match(charged, { order_id: /^v_/, payment_method: 'charge', price_cny: 99 });
  t.ok(charged.pay_url.length > 0, 'a pay_url is issued');
  r = await call(app, 'POST', '/v1/verdict/orders', { token: alice.access_token, body: { ...body, idempotency_key: 'order-1' } });
  t.equal(r.status, 200);
  t.same(r.body.data, charged, 'same key + same body → same order');
  r = await call(app, 'POST', '/v1/verdict/orders', { token: alice.access_token, body: { ...body, notes: 'other' }, headers: { 'idempotency-key': 'order-1' } });
  t.equal(r.status, 409);
  t.equal(r.body.error.code, 'CONFLICT');
  r = await call(app, 'GET', `/v1/verdict/orders/${charged.order_id}`, { token: alice.access_token });
  t.equal(r.body.data.status, 'created');
  const pay = r.body.data;
  t.ok(Math.abs(Date.parse(pay.pay_expires_at) - Date.now() - 24 * HOUR) < 120_000, 'pay_url valid 24 h');
  const [invoice] = await sql<{ id: string }[]>`SELECT charge_id AS id FROM verdict_orders WHERE id = ${charged.order_id}`;
  await sql.begin((tx) => settleInvoice(tx, invoice!.id));
  r = await call(app, 'GET', `/v1/verdict/orders/${charged.order_id}`, { token: alice.access_token });
  t.equal(r.body.data.status, 'paid', 'the charge paid moves the order to paid');

  // Credit path: a report pack with 2 credits; the order is paid at once, one credit deducted.
  const pack = newId('entitlement');
  await sql`INSERT INTO entitlements (id, user_id, kind, status, balance, source) VALUES (${pack}, ${alice.user_id}, 'report_pack', 'active', 2, 'test')`;
  r = await call(app, 'POST', '/v1/verdict/orders', { token: alice.access_token, body: { ...body, template: 'outage_window', idempotency_key: 'order-2', webhook_url: 'https://hooks.example.test/v' } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const credited = r.body.data;
  t.match(credited, { payment_method: 'report_credit', pay_url: '', price_cny: 49, webhook_secret: /^whsec_/ });
  t.equal(Number((await sql`SELECT balance FROM entitlements WHERE id = ${pack}`)[0]!.balance), 1);
  r = await call(app, 'POST', '/v1/verdict/orders', { token: alice.access_token, body: { ...body, template: 'outage_window', idempotency_key: 'order-2', webhook_url: 'https://hooks.example.test/v' } });
  t.equal(r.status, 200);
  t.equal(Number((await sql`SELECT balance FROM entitlements WHERE id = ${pack}`)[0]!.balance), 1, 'a replay deducts nothing');

  // Another account's id is 404; lists count only your own; limit clamped.
  r = await call(app, 'GET', `/v1/verdict/orders/${credited.order_id}`, { token: bob.access_token });
  t.equal(r.status, 404);
  r = await call(app, 'GET', `/v1/verdict/orders/${credited.order_id}/pdf`, { token: bob.access_token });
  t.equal(r.status, 404);
  r = await call(app, 'GET', '/v1/verdict/orders?limit=500&offset=-3', { token: alice.access_token });
  t.match(r.body.data, { total: 2, limit: 100, offset: 0 });
  t.equal(r.body.data.orders.length, 2);
  r = await call(app, 'GET', `/v1/verdict/orders/${credited.order_id}/pdf`, { token: alice.access_token });
  t.equal(r.status, 409, 'no PDF before generation');

  // Generation: both paid orders claimed, rendered, signed; completion notices queued.
  const gen = await runVerdictGeneration(deps);
  t.same(gen, { claimed: 2, completed: 2 });
  r = await call(app, 'GET', `/v1/verdict/orders/${credited.order_id}`, { token: alice.access_token });
  t.equal(r.body.data.status, 'completed');
  t.match(r.body.data.content_hash, /^sha256:[0-9a-f]{64}$/);
  t.same(r.body.data.attestation_records.map((a: any) => [a.action, a.status, a.retry_count]), [['signed', 'success', 0], ['s3_archived', 'success', 0]]);
  const hooks = await sql`SELECT payload FROM deliveries WHERE channel = 'verdict.webhook' AND destination = ${credited.order_id}`;
  t.equal(hooks.length, 1, 'the webhook callback is queued in the delivery engine');
  t.match(hooks[0]!.payload, { type: 'verdict.completed', data: { order_id: credited.order_id } });

  const first = await pdfOf(app, alice.access_token, credited.order_id);
  let v = await verify(app, first);
  t.equal(v.status, 200, JSON.stringify(v.body));
  t.match(v.body, { valid: true, report_type: 'observation_only', invalid_reason: null, content_hash: r.body.data.content_hash, signature_key_version: 1, signature_key_status: 'active', tsa_provider: null });
  t.ok(v.body.legal_disclaimer.includes('本报告'), 'bilingual disclaimer');
  t.notOk('data' in v.body, 'not enveloped');

  // What the PDF says: target, window, per-node figures, disclaimer (read back by pdftotext).
  const dir = await mkdtemp(join(tmpdir(), 'verdict-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'r.pdf'), first);
  if (process.env.VERDICT_PDF_KEEP) await writeFile(process.env.VERDICT_PDF_KEEP, first);
  const text = (await run('pdftotext', ['-layout', join(dir, 'r.pdf'), '-'])).stdout;
  for (const s of ['Outage window report', credited.order_id, 'example.com', nodes[0]!, nodes[1]!, 'Legal disclaimer', 'contract 42']) t.ok(text.includes(s), `PDF shows ${s}`);
  t.match(text, new RegExp(`${nodes[1]}\\s+\\S+\\s+5\\s+1\\s+20\\.00 %`), 'per-node checks, failures and failure rate');
  await run('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', join(dir, 'r.pdf'), join(dir, 'page')]);
  const png = await readFile(join(dir, 'page-1.png'));
  t.ok(png.length > 5000, 'page 1 rendered to PNG');
  if (process.env.VERDICT_PDF_OUT) await writeFile(process.env.VERDICT_PDF_OUT, png);

  // Each way a file can be wrong.
  const seal = readSeal(first)!;
  const body_at = first.indexOf(Buffer.from('stream')) + 40;
  const flipped = Buffer.from(first);
  flipped[body_at] = flipped[body_at]! ^ 0x01;
  v = await verify(app, flipped);
  t.match(v.body, { valid: false, invalid_reason: 'content_modified' }, 'one byte changed');
  v = await verify(app, first.subarray(0, Math.floor(first.length * 0.6)));
  t.match(v.body, { valid: false, invalid_reason: 'malformed_pdf' }, 'truncated file');
  v = await verify(app, Buffer.from('not a pdf at all'));
  t.match(v.body, { valid: false, invalid_reason: 'malformed_pdf' });
  const otherSig = [...seal.signature].reverse().join('');
  v = await verify(app, writeSeal(first, { ...seal, signature: otherSig }));
  t.match(v.body, { valid: false, invalid_reason: 'signature_mismatch' }, 'seal altered');
  const stranger = generateKeyPairSync('ed25519');
  const fake = { key_id: newId('attest_key'), key_version: 1, signed_at: new Date().toISOString(), content_hash: contentHash(first)! };
  v = await verify(app, writeSeal(first, { ...fake, signature: sign(null, signedMessage(fake), stranger.privateKey).toString('base64url') }));
  t.match(v.body, { valid: false, invalid_reason: 'key_unknown' }, 'signed by an unknown key');

  // Rotation between two reports: the first stays valid, signed by version 1 (now rotated).
  r = await call(app, 'POST', '/v1/admin/attest/keys/rotate', { token: admin.access_token, body: { notes: 'quarterly', witnesses: [{ identity: 'auditor@example.test', role: 'witness' }] } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  t.equal(r.body.data.key.key_version, 2);
  t.equal((await call(app, 'POST', '/v1/admin/attest/keys/rotate', { token: alice.access_token })).status, 403, 'admins only');
  r = await call(app, 'POST', '/v1/verdict/orders', { token: alice.access_token, body: { ...body, template: 'dns_consistency', idempotency_key: 'order-3' } });
  t.equal(r.body.data.payment_method, 'report_credit');
  t.same(await runVerdictGeneration(deps), { claimed: 1, completed: 1 });
  const second = await pdfOf(app, alice.access_token, r.body.data.order_id);
  t.match((await verify(app, second)).body, { valid: true, signature_key_version: 2, signature_key_status: 'active' });
  v = await verify(app, first);
  t.match(v.body, { valid: true, signature_key_version: 1, signature_key_status: 'rotated' }, 'a rotated key still verifies');
  const keys = (await call(app, 'GET', '/v1/attest/keys')).body.data;
  t.same(keys.map((k: any) => [k.key_version, k.status]), [[2, 'active'], [1, 'rotated']]);

  // Emergency revocation of version 1: its reports get a `revoked` record and say so on verification.
  r = await call(app, 'POST', `/v1/admin/attest/keys/${seal.key_id}/revoke`, { token: admin.access_token, body: { notes: 'key material exposed' } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.equal(r.body.data.key.status, 'revoked');
  t.equal((await call(app, 'POST', `/v1/admin/attest/keys/${seal.key_id}/revoke`, { token: admin.access_token })).status, 409);
  t.match((await verify(app, first)).body, { valid: true, signature_key_status: 'revoked' });
  t.equal((await call(app, 'GET', `/v1/attest/keys/${seal.key_id}`)).body.data.status, 'revoked', 'a revoked public key stays readable');
  r = await call(app, 'GET', `/v1/verdict/orders/${credited.order_id}`, { token: alice.access_token });
  t.ok(r.body.data.attestation_records.some((a: any) => a.action === 'revoked'), 'revoked record written');
  r = await call(app, 'GET', '/v1/attest/ceremonies', { token: admin.access_token });
  t.same(r.body.data.ceremonies.map((c: any) => c.action), ['emergency_revoke', 'sign_key_rotate', 'root_gen']);
  t.same(r.body.data.ceremonies[1].actors, [{ identity: adminEmail, role: 'administrator' }, { identity: 'auditor@example.test', role: 'witness' }]);
  t.equal((await call(app, 'GET', '/v1/attest/ceremonies', { token: alice.access_token })).status, 403);
});
