import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { newId } from '@vantage/shared-protocol';
import { eventually, startReceiver } from '../delivery/test-support.js';
import { seedMonitor } from '../checks/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { runVerdictGeneration } from './generate.js';

/*
 * Completion notices through the real delivery engine: the e-mail reaches a real SMTP server on
 * loopback and the webhook callback a receiver on loopback, verified with the standardwebhooks
 * library against the order's webhook_secret.
 */

t.test('a completed order is announced by e-mail and a signed webhook', async (t) => {
  const smtp = await startSmtpServer(t);
  const rx = await startReceiver(t);
  const { app, sql, deps } = await testApp(t, { config: { smtp_url: smtp.smtp_url, delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50 }, delivery: true });
  await registerUser(app);
  const alice = await registerUser(app);
  await seedMonitor(sql, { user_id: alice.user_id, nodes: 1 });
  await sql`INSERT INTO entitlements (id, user_id, kind, status, balance, source) VALUES (${newId('entitlement')}, ${alice.user_id}, 'report_pack', 'active', 1, 'test')`;
  const r = await call(app, 'POST', '/v1/verdict/orders', {
    token: alice.access_token,
    body: { template: 'uptime_sla', target: 'https://example.com/', time_window_start: new Date(Date.now() - 3_600_000).toISOString(), time_window_end: new Date().toISOString(), notify_email: 'legal@example.test', webhook_url: rx.url },
  });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const { order_id, webhook_secret } = r.body.data;
  t.same(await runVerdictGeneration(deps), { claimed: 1, completed: 1 });

  await eventually('the webhook callback', () => rx.received.length >= 1 || null);
  const got = rx.received[0]!;
  const payload = new Webhook(webhook_secret).verify(got.body, {
    'webhook-id': got.headers['webhook-id'] as string, 'webhook-timestamp': got.headers['webhook-timestamp'] as string, 'webhook-signature': got.headers['webhook-signature'] as string,
  }) as any;
  t.match(payload, { type: 'verdict.completed', data: { order_id, status: 'completed', content_hash: /^sha256:/, pdf_url: new RegExp(`/v1/verdict/orders/${order_id}/pdf$`) } });
  // Registration e-mails go to the same server; the report's goes to notify_email.
  const mail = await eventually('the report e-mail', () => smtp.messages.find((m) => m.to.includes('legal@example.test')) ?? null);
  t.match(mail.parsed.subject, new RegExp(`report ${order_id} is ready`));
});
