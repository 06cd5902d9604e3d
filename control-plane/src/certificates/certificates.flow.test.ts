import { X509Certificate } from 'node:crypto';
import t from 'tap';
import { call, registerUser } from '../test-support/app.js';
import { sendUpdate } from './dns-update.js';
import { acmeTestApp } from './test-acme.js';
import { startBind, startPebble } from './test-servers.js';

/*
 * Certificate orders end to end against real peers: Pebble (RFC 8555 test CA) validating DNS-01
 * at a real BIND 9, which takes the TXT records as TSIG-signed RFC 2136 updates. Issuance through
 * an rfc2136 credential, download and revocation; manual DNS (records not yet there, then
 * confirmed and seen on the authoritative server); a manual order retried with new TXT records
 * and issued; a failing step retried then failed, and the owner's retry; another account's ids
 * as 404. The job function that main.ts runs drives steps (test-acme.ts).
 */

// The file as a whole (tap's default is 120 s per file): Pebble and BIND validate slowly on a loaded machine.
t.setTimeout(400_000);

t.test('certificate orders over ACME with DNS-01', async (t) => {
  const bind = await startBind(t);
  const pebble = await startPebble(t, bind.port);
  const { app, drive: driveAs } = await acmeTestApp(t, pebble, bind);
  const [alice, bob] = [await registerUser(app), await registerUser(app)];
  const as = (u: { access_token: string }) => ({ token: u.access_token });
  /** Run due steps until `done(order)` (bounded). */
  const drive = (id: number, done: (o: any) => boolean) => driveAs(id, alice.access_token, done);

  // A credential for the zone: stored sealed, never returned; its health check is a no-op update.
  let r = await call(app, 'POST', '/v1/dns-credentials', { ...as(alice), body: {
    provider: 'rfc2136', display_name: 'lab BIND', secret: bind.key.secret_base64,
    settings: { server: '127.0.0.1', port: bind.port, zone: bind.zone, key_name: bind.key.name },
  } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const cred = r.body.data;
  t.match(cred, { id: Number, provider: 'rfc2136', health_status: 'unknown', revoked_at: null });
  t.notOk(JSON.stringify(r.body).includes(bind.key.secret_base64), 'the secret is never returned');
  r = await call(app, 'POST', `/v1/dns-credentials/${cred.id}/check`, as(alice));
  t.equal(r.body.data.health_status, 'valid', JSON.stringify(r.body));
  r = await call(app, 'GET', `/v1/dns-credentials/${cred.id}`, as(bob));
  t.equal(r.status, 404, 'another account\'s credential is 404');

  // Bad input: nothing stored.
  for (const [what, body] of [
    ['IP as SAN', { sans: ['127.0.0.1'], challenge_type: 'manual-dns' }],
    ['dns-01 without credential', { sans: [`www.${bind.zone}`], challenge_type: 'dns-01' }],
    ['unknown field', { sans: [`www.${bind.zone}`], challenge_type: 'manual-dns', key: 'x' }],
  ] as const) {
    r = await call(app, 'POST', '/v1/certificates/orders', { ...as(alice), body });
    t.equal(r.status, 400, what);
    t.equal(r.body.error.code, 'VALIDATION_FAILED', what);
  }
  r = await call(app, 'POST', '/v1/certificates/orders', { ...as(bob), body: { sans: [`www.${bind.zone}`], challenge_type: 'dns-01', dns_credential_id: cred.id } });
  t.equal(r.status, 404, 'another account\'s credential cannot be used');

  // Issuance through the credential (an IDN SAN beside an ASCII one).
  r = await call(app, 'POST', '/v1/certificates/orders', { ...as(alice), body: { sans: [`www.${bind.zone}`, `bücher.${bind.zone}`], challenge_type: 'dns-01', dns_credential_id: cred.id } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const order = r.body.data;
  t.match(order, { status: 'draft', ca: 'pebble', tier: 'dv', sans: [`www.${bind.zone}`, `xn--bcher-kva.${bind.zone}`], sans_unicode: [`www.${bind.zone}`, `bücher.${bind.zone}`], retry_count: 0 });
  r = await call(app, 'POST', `/v1/certificates/orders/${order.id}/submit`, as(alice));
  t.equal(r.body.data.status, 'validating');
  r = await call(app, 'POST', `/v1/certificates/orders/${order.id}/submit`, as(alice));
  t.equal(r.status, 409, 'submitting twice is a conflict');
  const issued = await drive(order.id, (o) => o.status === 'issued' || o.status === 'failed');
  t.equal(issued.status, 'issued', JSON.stringify(issued));
  t.same(issued.events.map((e: any) => e.action_seq), issued.events.map((_: any, i: number) => i + 1), 'events numbered in order');
  t.ok(issued.events.some((e: any) => e.action === 'txt_records_visible'), 'records seen on the authoritative server before the CA was told');
  t.same(bind.txt(`_acme-challenge.www.${bind.zone}`), [], 'challenge records cleaned up');
  r = await call(app, 'GET', `/v1/certificates/${issued.cert_id}`, as(alice));
  const cert = r.body.data;
  t.match(cert, { status: 'issued', order_id: order.id, serial_hex: /^[0-9a-f]+$/, fingerprint_sha256: /^[0-9a-f]{64}$/ });
  t.same([...cert.sans].sort(), [`www.${bind.zone}`, `xn--bcher-kva.${bind.zone}`].sort());
  const res = await app.request(`/v1/certificates/${cert.id}/chain`, { headers: { authorization: `Bearer ${alice.access_token}` } });
  const pem = await res.text();
  const leaf = new X509Certificate(pem);
  t.equal(leaf.serialNumber.toLowerCase(), cert.serial_hex, 'the chain\'s leaf is the stored certificate');
  const keyRes = await app.request(`/v1/certificates/${cert.id}/private-key`, { headers: { authorization: `Bearer ${alice.access_token}` } });
  t.ok(leaf.checkPrivateKey((await import('node:crypto')).createPrivateKey(await keyRes.text())), 'the private key matches the certificate');
  t.equal((await call(app, 'GET', `/v1/certificates/${cert.id}`, as(bob))).status, 404, 'another account\'s certificate is 404');

  // Revocation through ACME.
  r = await call(app, 'POST', `/v1/certificates/${cert.id}/revoke`, { ...as(alice), body: { reason: 'superseded' } });
  t.equal(r.body.data.status, 'revoking', JSON.stringify(r.body));
  const revoked = await drive(order.id, (o) => o.status === 'revoked' || o.status === 'issued');
  t.equal(revoked.status, 'revoked', JSON.stringify(revoked));
  r = await call(app, 'GET', `/v1/certificates/${cert.id}`, as(alice));
  t.match(r.body.data, { status: 'revoked', revoke_reason: 'superseded', revoked_at: String });

  // Manual DNS: the records are shown; a confirmation before they exist says what is missing.
  r = await call(app, 'POST', '/v1/certificates/orders', { ...as(alice), body: { sans: [`manual.${bind.zone}`], challenge_type: 'manual-dns' } });
  const manual = r.body.data;
  await call(app, 'POST', `/v1/certificates/orders/${manual.id}/submit`, as(alice));
  const waiting = await drive(manual.id, (o) => o.manual_challenges.length > 0 || o.status === 'failed');
  t.equal(waiting.manual_challenges.length, 1);
  const ch = waiting.manual_challenges[0];
  t.equal(ch.fqdn, `_acme-challenge.manual.${bind.zone}`);
  r = await call(app, 'POST', `/v1/certificates/orders/${manual.id}/confirm`, as(alice));
  t.equal(r.status, 200);
  const notYet = await drive(manual.id, (o) => o.events.some((e: any) => e.action === 'manual_challenges_not_visible'));
  t.match(notYet.manual_challenges[0].message, /not yet visible/);
  t.equal(notYet.status, 'validating');
  await sendUpdate({ host: '127.0.0.1', port: bind.port, zone: bind.zone, key: bind.key, timeout_ms: 30_000 }, [{ op: 'add', fqdn: ch.fqdn, value: ch.value }]);
  await call(app, 'POST', `/v1/certificates/orders/${manual.id}/confirm`, as(alice));
  const manualDone = await drive(manual.id, (o) => o.status === 'issued' || o.status === 'failed');
  t.equal(manualDone.status, 'issued', JSON.stringify(manualDone));
  t.same(manualDone.manual_challenges, [], 'no records shown once issued');

  // Manual DNS retried: a new ACME order, so new TXT values; the old ones are not shown again,
  // and the retried order is issued once the new records are seen.
  r = await call(app, 'POST', '/v1/certificates/orders', { ...as(alice), body: { sans: [`again.${bind.zone}`, `*.again.${bind.zone}`], challenge_type: 'manual-dns' } });
  const again = r.body.data;
  await call(app, 'POST', `/v1/certificates/orders/${again.id}/submit`, as(alice));
  const firstTry = await drive(again.id, (o) => o.manual_challenges.length > 0 || o.status === 'failed');
  t.equal(firstTry.manual_challenges.length, 2, 'one record per SAN (the wildcard\'s at the same name)');
  t.same(firstTry.manual_challenges.map((c: any) => c.fqdn), [`_acme-challenge.again.${bind.zone}`, `_acme-challenge.again.${bind.zone}`]);
  r = await call(app, 'POST', `/v1/certificates/orders/${again.id}/cancel`, as(alice));
  t.match(r.body.data, { status: 'failed', manual_challenges: [] });
  r = await call(app, 'POST', `/v1/certificates/orders/${again.id}/retry`, as(alice));
  t.match(r.body.data, { status: 'validating', retry_count: 1, manual_challenges: [] }, 'the old records are gone on retry');
  const secondTry = await drive(again.id, (o) => o.manual_challenges.length > 0 || o.status === 'failed');
  t.equal(secondTry.manual_challenges.length, 2);
  const oldValues = firstTry.manual_challenges.map((c: any) => c.value);
  t.ok(secondTry.manual_challenges.every((c: any) => !oldValues.includes(c.value)), 'the records are regenerated');
  await sendUpdate({ host: '127.0.0.1', port: bind.port, zone: bind.zone, key: bind.key, timeout_ms: 30_000 },
    secondTry.manual_challenges.map((c: any) => ({ op: 'add' as const, fqdn: c.fqdn, value: c.value })));
  await call(app, 'POST', `/v1/certificates/orders/${again.id}/confirm`, as(alice));
  const againDone = await drive(again.id, (o) => o.status === 'issued' || o.status === 'failed');
  t.equal(againDone.status, 'issued', JSON.stringify(againDone));
  t.ok(againDone.events.some((e: any) => e.action === 'retried'), 'the retry is in the events');

  // A step that keeps failing (the server refuses the key): retried, then failed; the owner retries.
  r = await call(app, 'POST', '/v1/dns-credentials', { ...as(alice), body: {
    provider: 'rfc2136', display_name: 'wrong key', secret: Buffer.alloc(32, 9).toString('base64'),
    settings: { server: '127.0.0.1', port: bind.port, zone: bind.zone, key_name: bind.key.name },
  } });
  const wrong = r.body.data;
  r = await call(app, 'POST', `/v1/dns-credentials/${wrong.id}/check`, as(alice));
  t.equal(r.body.data.health_status, 'invalid');
  r = await call(app, 'POST', '/v1/certificates/orders', { ...as(alice), body: { sans: [`fail.${bind.zone}`], challenge_type: 'dns-01', dns_credential_id: wrong.id } });
  const failing = r.body.data;
  await call(app, 'POST', `/v1/certificates/orders/${failing.id}/submit`, as(alice));
  const failed = await drive(failing.id, (o) => o.status === 'failed');
  t.match(failed, { status: 'failed', retry_count: 1, last_error: /DNS update/ });
  t.ok(failed.events.some((e: any) => e.action === 'step_failed') && failed.events.at(-1).action === 'failed');
  r = await call(app, 'POST', `/v1/certificates/orders/${failing.id}/retry`, as(alice));
  t.match(r.body.data, { status: 'validating', retry_count: 2 });
  r = await call(app, 'POST', `/v1/certificates/orders/${failing.id}/cancel`, as(alice));
  t.match(r.body.data, { status: 'failed', last_error: 'canceled by the owner' });
  r = await call(app, 'POST', `/v1/dns-credentials/${wrong.id}/revoke`, as(alice));
  t.match(r.body.data, { revoked_at: String });
});
