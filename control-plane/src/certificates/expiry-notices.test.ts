import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { eventually, startReceiver } from '../delivery/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { setCertificateStatus } from './certificates.db.js';
import { runExpiryNotices } from './expiry-notices.js';
import { storeCertificate } from './test-certificates.js';

/*
 * Expiry notices of issued certificates through the real delivery engine: `certificate.expiring`
 * reaches the owner's webhook endpoint on loopback (verified with the standardwebhooks library)
 * and the e-mail a real SMTP server, once per certificate, for certificates inside the notice
 * period only (not later ones, not revoked or already expired ones, not another account's
 * endpoints).
 */

t.test('certificate.expiring and the e-mail, once per certificate within the notice period', async (t) => {
  const smtp = await startSmtpServer(t);
  const rx = await startReceiver(t);
  const { app, sql, deps } = await testApp(t, {
    config: { smtp_url: smtp.smtp_url, delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50, certificates_expiry_notice_days: 21 }, delivery: true,
  });
  const [alice, bob] = [await registerUser(app), await registerUser(app)];
  const endpoint = async (u: { access_token: string }) => {
    const r = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: rx.url, events: ['certificate.expiring'] } });
    t.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data as { endpoint: { id: string }; secret: string };
  };
  const mine = await endpoint(alice);
  await endpoint(bob);
  const owner = { user_id: alice.user_id, team_id: null };
  const soon = await storeCertificate(sql, owner, ['soon.example.test', '*.soon.example.test'], 10);
  await storeCertificate(sql, owner, ['later.example.test'], 60);
  const revoked = await storeCertificate(sql, owner, ['revoked.example.test'], 5);
  await setCertificateStatus(sql, Number(revoked.id), { status: 'revoked', revoked_at: new Date(), revoke_reason: 'superseded' });
  const gone = await storeCertificate(sql, owner, ['gone.example.test'], 1);
  await sql`UPDATE certificates SET not_before = now() - interval '90 days', not_after = now() - interval '1 hour' WHERE id = ${gone.id}`;

  t.equal(await runExpiryNotices(deps), 1, 'only the certificate inside the notice period');
  t.equal(await runExpiryNotices(deps), 0, 'never twice');

  const got = await eventually('the webhook', () => rx.received[0] ?? null);
  const payload = new Webhook(mine.secret).verify(got.body, {
    'webhook-id': got.headers['webhook-id'] as string, 'webhook-timestamp': got.headers['webhook-timestamp'] as string, 'webhook-signature': got.headers['webhook-signature'] as string,
  }) as any;
  t.match(payload, {
    type: 'certificate.expiring',
    data: { certificate: { id: Number(soon.id), order_id: Number(soon.order_id), sans: ['soon.example.test', '*.soon.example.test'], serial_hex: soon.serial_hex }, expires_at: soon.not_after.toISOString(), days_left: 9 },
  });
  const mail = await eventually('the e-mail', () => smtp.messages.find((m) => m.parsed.subject?.includes('soon.example.test')) ?? null);
  t.ok(mail.to.includes(alice.email), 'to the certificate\'s owner');
  t.match(mail.parsed.subject, /expires in 9 days/);
  t.match(mail.parsed.text, new RegExp(`/v1/certificates/${soon.id}`));
  // Everything the passes queued (deliveries are queued with the claim): one webhook delivery to
  // alice's endpoint (bob's endpoint gets nothing) and one e-mail, for one certificate.
  const queued = await sql<{ channel: string; destination: string }[]>`SELECT channel, destination FROM deliveries WHERE event_type = 'certificate.expiring' ORDER BY channel`;
  t.same(queued.map((d) => [d.channel, d.destination]), [['email', alice.email.toLowerCase()], ['webhook', mine.endpoint.id]]);
});
