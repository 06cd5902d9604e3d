import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { newId, type MonitorResultEnvelope } from '@vantage/shared-protocol';
import { startReceiver } from '../delivery/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { httpResult, roundAt, seedMonitor } from './test-support.js';

/*
 * ssl.expiring from the certificates nodes report: a real app (its result sink and check store as
 * main.ts builds them), a real delivery worker and a real HTTP receiver on loopback checking the
 * Standard Webhooks signature.
 */

/** An ssl_expiry result as a node sends it: the certificate `fingerprint` with `days_left`. */
function sslResult(monitor_id: string, scheduled_at: string, cert: { fingerprint: string; days_left: number; not_after: string }): MonitorResultEnvelope {
  const start = Date.parse(scheduled_at) + 3;
  return {
    result_id: newId('result'), task_id: null, monitor_id, type: 'ssl_expiry', scheduled_at,
    started_at: new Date(start).toISOString(), finished_at: new Date(start + 40).toISOString(),
    success: true, error: null, error_class: null, assertions: [],
    output: {
      resolved_address: '198.18.1.10', port: 443, servername: 'shop.example.com', handshake_ms: 31, tls_version: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256',
      subject: 'CN=shop.example.com', issuer: 'CN=Test CA', not_before: '2026-09-01T00:00:00.000Z', not_after: cert.not_after,
      days_until_expiry: cert.days_left, san: ['shop.example.com'], fingerprint_sha256: cert.fingerprint,
      chain_valid: true, chain_error: null, hostname_match: true,
    },
  } as MonitorResultEnvelope;
}

t.test('ssl.expiring: once per certificate and threshold, whatever the nodes and rounds; https monitors at the defaults', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50, checks_round_grace_ms: 3_600_000 }, delivery: true });
  const u = await registerUser(app);
  const rx = await startReceiver(t);
  const endpoint = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: rx.url, events: ['ssl.expiring'] } });
  t.equal(endpoint.status, 201);
  const verify = (i: number) => {
    const r = rx.received[i]!;
    return new Webhook(endpoint.body.data.secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']),
    }) as { type: string; data: any };
  };
  const queued = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM deliveries WHERE event_type = 'ssl.expiring'`)[0]!.n;
  const ingest = async (node_id: string, r: MonitorResultEnvelope) => t.same(await deps.results.ingest(node_id, [r]), { stored: [r.result_id], rejected: [] });

  const ssl = await seedMonitor(sql, { user_id: u.user_id, nodes: 2, type: 'ssl_expiry', config: { warn_days: 30, critical_days: 7, min_days_remaining: 5 } });
  const [a, b] = ssl.node_ids as [string, string];
  const old = { fingerprint: 'AA:11', not_after: '2026-12-20T00:00:00.000Z' };
  await ingest(a, sslResult(ssl.monitor_id, roundAt(ssl, -6), { ...old, days_left: 40 }));
  t.equal(await queued(), 0, '40 days left: above warn_days, nothing sent');
  const r5 = roundAt(ssl, -5); // once: two calls could straddle a round boundary
  await ingest(a, sslResult(ssl.monitor_id, r5, { ...old, days_left: 29 }));
  await ingest(b, sslResult(ssl.monitor_id, r5, { ...old, days_left: 29 }));
  await ingest(a, sslResult(ssl.monitor_id, roundAt(ssl, -4), { ...old, days_left: 28 }));
  t.equal(await queued(), 1, 'below warn_days: one event for both nodes and both rounds');
  await rx.waitFor(1);
  t.match(verify(0), {
    type: 'ssl.expiring',
    data: {
      monitor: { id: ssl.monitor_id, type: 'ssl_expiry', target: 'https://example.com/' }, host: 'shop.example.com',
      subject: 'CN=shop.example.com', issuer: 'CN=Test CA', expires_at: old.not_after, days_left: 29,
    },
  }, 'signed, naming the certificate');

  const r3 = roundAt(ssl, -3);
  await ingest(b, sslResult(ssl.monitor_id, r3, { ...old, days_left: 6 }));
  await ingest(a, sslResult(ssl.monitor_id, r3, { ...old, days_left: 6 }));
  t.equal(await queued(), 2, 'below critical_days: one more');
  await rx.waitFor(2);
  t.match(verify(1), { type: 'ssl.expiring', data: { days_left: 6, expires_at: old.not_after } });

  const renewed = { fingerprint: 'BB:22', not_after: '2027-03-20T00:00:00.000Z' };
  await ingest(a, sslResult(ssl.monitor_id, roundAt(ssl, -2), { ...renewed, days_left: 89 }));
  t.equal(await queued(), 2, 'renewed: nothing to report');
  await ingest(a, sslResult(ssl.monitor_id, roundAt(ssl, -1), { fingerprint: 'CC:33', not_after: '2026-12-01T00:00:00.000Z', days_left: 2 }));
  await rx.waitFor(3);
  t.match(verify(2), { type: 'ssl.expiring', data: { days_left: 2, expires_at: '2026-12-01T00:00:00.000Z' } }, 'another certificate below both thresholds at once: one event');
  t.equal(await queued(), 3);

  const https = await seedMonitor(sql, { user_id: u.user_id, nodes: 1, type: 'https' });
  const [n] = https.node_ids as [string];
  const withCert = (at: string, days_left: number) => {
    const r = httpResult(https.monitor_id, at) as MonitorResultEnvelope & { type: 'https'; output: any };
    r.type = 'https';
    r.output.certificate = { subject: 'example.com', issuer: 'Test CA', not_before: '2026-09-01T00:00:00.000Z', not_after: '2026-12-10T00:00:00.000Z', days_left, san: ['example.com'] };
    return r;
  };
  await ingest(n, withCert(roundAt(https, -3), 20));
  t.equal(await queued(), 3, 'https: 20 days left is above the default warn_days (14)');
  await ingest(n, withCert(roundAt(https, -2), 12));
  await ingest(n, withCert(roundAt(https, -1), 11));
  await rx.waitFor(4);
  t.match(verify(3), { type: 'ssl.expiring', data: { monitor: { id: https.monitor_id, type: 'https' }, host: 'example.com', subject: 'example.com', days_left: 12, expires_at: '2026-12-10T00:00:00.000Z' } });
  t.equal(await queued(), 4, 'once');
});
