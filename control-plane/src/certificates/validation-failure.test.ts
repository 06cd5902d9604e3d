import t from 'tap';
import { call, registerUser } from '../test-support/app.js';
import { sendUpdate } from './dns-update.js';
import { acmeTestApp } from './test-acme.js';
import { startBind, startPebble } from './test-servers.js';

/*
 * A validation the CA refuses, then a retry that passes, against real peers: Vantage checks the
 * TXT records at one BIND 9 (the zone's authoritative server as Vantage resolves it) while Pebble
 * validates DNS-01 at another BIND 9 serving the same zone. The first attempt's records exist only
 * where Vantage looks, so Pebble marks the authorization invalid and the order fails; the owner
 * retries, gets new records, creates them where both look, and the order is issued.
 */

t.test('the CA refuses a validation; the retried order is issued', async (t) => {
  const seen = await startBind(t);
  const caView = await startBind(t);
  const pebble = await startPebble(t, caView.port);
  const { app, drive: driveAs } = await acmeTestApp(t, pebble, seen);
  const alice = await registerUser(app);
  const as = { token: alice.access_token };
  const drive = (id: number, done: (o: any) => boolean) => driveAs(id, alice.access_token, done);
  const add = (bind: typeof seen, records: Array<{ fqdn: string; value: string }>) =>
    sendUpdate({ host: '127.0.0.1', port: bind.port, zone: bind.zone, key: bind.key, timeout_ms: 30_000 }, records.map((r) => ({ op: 'add' as const, fqdn: r.fqdn, value: r.value })));

  let r = await call(app, 'POST', '/v1/certificates/orders', { ...as, body: { sans: [`www.${seen.zone}`], challenge_type: 'manual-dns' } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.data.id;
  await call(app, 'POST', `/v1/certificates/orders/${id}/submit`, as);
  const first = await drive(id, (o) => o.manual_challenges.length > 0 || o.status === 'failed');
  await add(seen, first.manual_challenges);
  await call(app, 'POST', `/v1/certificates/orders/${id}/confirm`, as);
  const failed = await drive(id, (o) => o.status === 'failed' || o.status === 'issued');
  t.match(failed, { status: 'failed', cert_id: null }, 'the CA refused it');
  t.match(failed.last_error, new RegExp(`^validation of www\\.${seen.zone} failed: .*_acme-challenge\\.www\\.${seen.zone}.* \\(urn:ietf:params:acme:error:unauthorized\\)$`), 'the CA\'s reason, not the authorization\'s JSON');
  const actions = failed.events.map((e: any) => e.action);
  t.ok(actions.includes('txt_records_visible') && actions.includes('challenges_submitted'), 'Vantage saw the records and told the CA');
  t.equal(actions.at(-1), 'failed');
  t.notOk(actions.includes('step_failed'), 'a refused validation is not retried by the job: it fails the order at once');

  r = await call(app, 'POST', `/v1/certificates/orders/${id}/retry`, as);
  t.match(r.body.data, { status: 'validating', retry_count: 1 });
  const second = await drive(id, (o) => o.manual_challenges.length > 0 || o.status === 'failed');
  t.not(second.manual_challenges[0].value, first.manual_challenges[0].value, 'a new ACME order: a new TXT value');
  await add(seen, second.manual_challenges);
  await add(caView, second.manual_challenges);
  await call(app, 'POST', `/v1/certificates/orders/${id}/confirm`, as);
  const issued = await drive(id, (o) => o.status === 'issued' || o.status === 'failed');
  t.match(issued, { status: 'issued', retry_count: 1, last_error: null, cert_id: Number }, JSON.stringify(issued));
  r = await call(app, 'GET', `/v1/certificates/${issued.cert_id}`, as);
  t.same(r.body.data.sans, [`www.${seen.zone}`]);
});
