import t from 'tap';
import { seedNodes } from '../checks/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { setCertificateStatus } from './certificates.db.js';
import { sanCovers } from './certificate-monitor.js';
import { storeCertificate } from './test-certificates.js';

/*
 * An ssl_expiry monitor of a stored certificate in one call, through the app on a real database:
 * the default host (the first SAN that is not a wildcard), a host the certificate covers (through
 * its wildcard, in Unicode), hosts it does not cover refused with nothing created, the checker's
 * config rules, a second monitor of the same name refused, another account's certificate 404,
 * and revoked or expired certificates refused (stored certificates: test-certificates.ts).
 */

t.test('sanCovers: exact names, and a wildcard for exactly one leftmost label', async (t) => {
  t.ok(sanCovers('shop.example.test', 'shop.example.test'));
  t.ok(sanCovers('*.example.test', 'api.example.test'));
  t.notOk(sanCovers('*.example.test', 'example.test'), 'not the bare domain');
  t.notOk(sanCovers('*.example.test', 'a.b.example.test'), 'not two labels');
  t.notOk(sanCovers('*.example.test', 'apiexample.test'));
  t.notOk(sanCovers('shop.example.test', 'www.shop.example.test'));
});

t.test('POST /v1/certificates/{id}/monitor', async (t) => {
  const { app, sql } = await testApp(t);
  const [alice, bob] = [await registerUser(app), await registerUser(app)];
  const as = (u: { access_token: string }) => ({ token: u.access_token });
  // Alice runs a node that allows private targets: the test names (.test) do not resolve, and her
  // monitors may still check them (docs/api/monitors.md "Targets").
  const [node] = await seedNodes(sql, 1);
  await sql`UPDATE nodes SET owner_user_id = ${alice.user_id}, allow_private = true WHERE id = ${node!}`;

  const stored = async (sans: string[], days = 60) => Number((await storeCertificate(sql, { user_id: alice.user_id, team_id: null }, sans, days)).id);
  const monitors = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE user_id = ${alice.user_id}`)[0]!.n;
  const id = await stored(['*.example.test', 'shop.example.test']);
  const path = `/v1/certificates/${id}/monitor`;

  // Refusals change nothing.
  let r = await call(app, 'POST', path, { ...as(bob), body: {} });
  t.equal(r.status, 404, 'another account\'s certificate is 404');
  t.equal((await call(app, 'POST', '/v1/certificates/999999/monitor', { ...as(alice), body: {} })).status, 404);
  for (const [what, body, field] of [
    ['a host it does not cover', { host: 'shop.example.org' }, 'host'],
    ['two labels under the wildcard', { host: 'a.b.example.test' }, 'host'],
    ['a wildcard host', { host: '*.example.test' }, 'host'],
    ['critical_days above warn_days', { config: { warn_days: 5, critical_days: 10 } }, 'config.critical_days'],
  ] as const) {
    r = await call(app, 'POST', path, { ...as(alice), body });
    t.equal(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
    t.equal(r.body.error.code, 'VALIDATION_FAILED', what);
    t.equal(r.body.error.details.fields[0].path, field, what);
  }
  r = await call(app, 'POST', path, { ...as(alice), body: { interval_s: 7 } });
  t.equal(r.status, 400, 'an interval the deployment does not offer');
  t.equal(r.body.error.code, 'MONITOR_INVALID_INTERVAL');
  t.equal((await call(app, 'POST', path, { ...as(alice), body: { unknown: 1 } })).status, 400, 'unknown fields refused');
  t.equal(await monitors(), 0, 'no monitor was created by a refused request');

  // Without a body: the first SAN that is not a wildcard, the ssl_expiry defaults.
  r = await call(app, 'POST', path, as(alice));
  t.equal(r.status, 201, JSON.stringify(r.body));
  const first = r.body.data;
  t.match(first, { id: /^m_/, type: 'ssl_expiry', target: 'shop.example.test', name: 'Certificate shop.example.test', status: 'active', team_id: null });
  t.match(first.config, { min_days_remaining: 14, warn_days: 14, critical_days: 3 });
  r = await call(app, 'GET', `/v1/monitors/${first.id}`, as(alice));
  t.equal(r.body.data.target, 'shop.example.test', 'an ordinary monitor of hers');
  r = await call(app, 'POST', path, as(alice));
  t.equal(r.status, 409, 'the same monitor twice');
  t.equal(r.body.error.code, 'MONITOR_NAME_TAKEN');

  // A host under the wildcard, in Unicode and mixed case; thresholds, name and tags given.
  r = await call(app, 'POST', path, { ...as(alice), body: { host: 'Bücher.Example.Test', name: 'Shop books certificate', tags: ['Certs'], interval_s: 1800, config: { warn_days: 30, critical_days: 7, min_days_remaining: 7, port: 8443 } } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  t.match(r.body.data, { target: 'xn--bcher-kva.example.test', name: 'Shop books certificate', tags: ['certs'], interval_s: 1800 });
  t.match(r.body.data.config, { warn_days: 30, critical_days: 7, min_days_remaining: 7, port: 8443 });
  // Its expiry reaches alerting through the monitor's alert policies.
  r = await call(app, 'POST', '/v1/alert-policies', { ...as(alice), body: { name: 'certificate expiry', monitor_id: r.body.data.id } });
  t.equal(r.status, 201, JSON.stringify(r.body));

  // Only wildcards: a host is needed.
  const wild = await stored(['*.wild.test']);
  r = await call(app, 'POST', `/v1/certificates/${wild}/monitor`, { ...as(alice), body: {} });
  t.equal(r.status, 400);
  t.match(r.body.error.message, /wildcard/);
  r = await call(app, 'POST', `/v1/certificates/${wild}/monitor`, { ...as(alice), body: { host: 'www.wild.test' } });
  t.equal(r.status, 201, JSON.stringify(r.body));

  // Revoked and expired certificates are not monitored.
  await setCertificateStatus(sql, id, { status: 'revoked', revoked_at: new Date(), revoke_reason: 'superseded' });
  r = await call(app, 'POST', path, { ...as(alice), body: { name: 'after revocation' } });
  t.equal(r.status, 409);
  t.match(r.body.error, { code: 'CONFLICT', details: { status: 'revoked' } });
  // Past its not_after (openssl 3.0 cannot backdate one): the stored validity moved into the past.
  const expired = await stored(['old.example.test'], 1);
  await sql`UPDATE certificates SET not_before = now() - interval '90 days', not_after = now() - interval '1 day' WHERE id = ${expired}`;
  r = await call(app, 'POST', `/v1/certificates/${expired}/monitor`, { ...as(alice), body: {} });
  t.equal(r.status, 409);
  t.match(r.body.error.details, { status: 'expired' });
  t.equal(await monitors(), 3, 'three monitors: the default, the Unicode host and the wildcard certificate\'s');
});
