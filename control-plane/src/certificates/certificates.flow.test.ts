import { X509Certificate } from 'node:crypto';
import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import { createLogger } from '../log.js';
import { sendUpdate } from './dns-update.js';
import { runDueOrders } from './order-jobs.js';
import { startBind, startPebble } from './test-servers.js';

/*
 * Certificate orders end to end against real peers: Pebble (RFC 8555 test CA) validating DNS-01
 * at a real BIND 9, which takes the TXT records as TSIG-signed RFC 2136 updates. Issuance through
 * an rfc2136 credential, download and revocation; manual DNS (records not yet there, then
 * confirmed and seen on the authoritative server); a failing step retried then failed, and the
 * owner's retry; another account's ids as 404. The job function that main.ts runs drives steps.
 */

t.test('certificate orders over ACME with DNS-01', async (t) => {
  const bind = await startBind(t);
  const pebble = await startPebble(t, bind.port);
  const { app, deps } = await testApp(t, { config: {
    certificates_acme_directory_url: pebble.directory_url, certificates_acme_ca_file: pebble.ca_file, certificates_ca_name: 'pebble',
    certificates_dns_resolvers: [`127.0.0.1:${bind.port}`], certificates_dns_port: bind.port,
    certificates_retry_base_ms: 0, certificates_max_attempts: 2, certificates_propagation_timeout_ms: 30_000,
  } });
  const jobDeps = { sql: deps.sql, config: deps.config, box: secretBoxOf(deps.config), log: createLogger('silent') };
  const [alice, bob] = [await registerUser(app), await registerUser(app)];
  const as = (u: { access_token: string }) => ({ token: u.access_token });
  /** Run due steps until the order leaves `while_status` (bounded). */
  const drive = async (id: number, done: (o: any) => boolean) => {
    const until = Date.now() + 180_000;
    for (;;) {
      await runDueOrders(jobDeps);
      const o = (await call(app, 'GET', `/v1/certificates/orders/${id}`, as(alice))).body.data;
      if (done(o)) return o;
      if (Date.now() > until) throw new Error(`order ${id} stuck: ${JSON.stringify(o)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

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
