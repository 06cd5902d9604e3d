import net, { type AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import pino from 'pino';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { smtpOutputSchema, smtpParamsSchema, type SmtpParams } from '@vantage/shared-protocol';
import { smtpProbe } from './smtp.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { makeTestPki, type TestPki } from './test-support/certs.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const params = (p: Partial<SmtpParams> = {}): SmtpParams => smtpParamsSchema.parse({ timeout_ms: 5000, helo_name: 'probe.test', ...p });
const ctx = (policy = ALLOW) => ({ signal: new AbortController().signal, policy, log });

let pki: TestPki;
t.before(async () => { pki = await makeTestPki(); });

/** A real SMTP server (nodemailer's smtp-server) on 127.0.0.1:0; records the commands' envelope. */
async function serve(t: Test, options: SMTPServerOptions) {
  const seen = { mail_from: [] as string[], rcpt_to: [] as string[], data: 0 };
  const server = new SMTPServer({
    banner: 'probe test server', authOptional: true, logger: false, size: 10_240_000,
    key: pki.leaf.key, cert: pki.leaf.cert,
    onMailFrom(address, _session, cb) { seen.mail_from.push(address.address); cb(); },
    onRcptTo(address, _session, cb) {
      seen.rcpt_to.push(address.address);
      cb(address.address.startsWith('nobody@') ? Object.assign(new Error('no such user here'), { responseCode: 550 }) : undefined);
    },
    onData(stream, _session, cb) { seen.data++; stream.resume(); stream.on('end', () => cb()); },
    ...options,
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, seen };
}

t.test('STARTTLS offered and negotiated: banner, both EHLO lists, TLS and certificate facts', async (t) => {
  const { port, seen } = await serve(t, {});
  const r = await smtpProbe.run(`localhost:${port}`, params(), ctx());
  smtpOutputSchema.parse(r.output);
  t.equal(r.success, true, r.error ?? '');
  t.equal(r.output.port, port);
  t.equal(r.output.banner?.code, 220);
  t.match(r.output.banner?.text, /probe test server/);
  t.equal(r.output.starttls_offered, true);
  t.equal(r.output.starttls_negotiated, true);
  t.equal(r.output.tls_mode, 'starttls');
  t.ok(r.output.ehlo_extensions.includes('SIZE 10240000'), r.output.ehlo_extensions.join(','));
  t.notOk(r.output.ehlo_extensions.includes('STARTTLS'), 'the list is the second EHLO\'s, after the upgrade');
  t.match(r.output.tls?.version, /^TLSv1\.[23]$/);
  t.ok(r.output.tls?.cipher);
  t.equal(r.output.tls?.authorized, false, 'the test CA is not in the node\'s trust store');
  t.ok(r.output.tls?.authorization_error);
  t.ok(r.output.certificate?.san.includes('DNS:localhost'), String(r.output.certificate?.san));
  t.ok(r.output.certificate!.days_left > 300);
  for (const k of ['connect_ms', 'banner_ms', 'tls_ms', 'ehlo_ms', 'total_ms'] as const) t.type(r.output.timing[k], 'number', k);
  t.equal(r.output.timing.mail_ms, null);
  t.same(seen, { mail_from: [], rcpt_to: [], data: 0 }, 'no MAIL FROM without an envelope');
});

t.test('without STARTTLS offered (or with starttls: false) the session stays plain', async (t) => {
  const { port } = await serve(t, { hideSTARTTLS: true });
  const r = await smtpProbe.run(`127.0.0.1:${port}`, params(), ctx());
  t.equal(r.success, true, r.error ?? '');
  t.equal(r.output.starttls_offered, false);
  t.equal(r.output.starttls_negotiated, false);
  t.equal(r.output.tls_mode, 'none');
  t.equal(r.output.tls, null);
  t.equal(r.output.timing.tls_ms, null);
  const offered = await serve(t, {});
  const kept = await smtpProbe.run(`127.0.0.1:${offered.port}`, params({ starttls: false }), ctx());
  t.equal(kept.output.starttls_offered, true);
  t.equal(kept.output.starttls_negotiated, false);
  t.ok(kept.output.ehlo_extensions.includes('STARTTLS'));
});

t.test('implicit TLS (the port-465 way)', async (t) => {
  const { port } = await serve(t, { secure: true });
  const r = await smtpProbe.run(`127.0.0.1:${port}`, params({ implicit_tls: true }), ctx());
  t.equal(r.success, true, r.error ?? '');
  t.equal(r.output.tls_mode, 'implicit');
  t.equal(r.output.starttls_offered, false);
  t.match(r.output.tls?.version, /^TLSv1\.[23]$/);
  t.equal(r.output.certificate?.subject, 'localhost');
});

t.test('an envelope goes to RCPT TO and stops there: no DATA', async (t) => {
  const { port, seen } = await serve(t, {});
  const ok = await smtpProbe.run(`127.0.0.1:${port}`, params({ mail_from: 'probe@example.test', rcpt_to: 'postmaster@example.test' }), ctx());
  t.equal(ok.success, true, ok.error ?? '');
  t.equal(ok.output.mail_from?.code, 250);
  t.equal(ok.output.rcpt_to?.code, 250);
  t.type(ok.output.timing.mail_ms, 'number');
  const refused = await smtpProbe.run(`127.0.0.1:${port}`, params({ mail_from: 'probe@example.test', rcpt_to: 'nobody@example.test' }), ctx());
  t.equal(refused.success, true, 'a refused recipient is reported, the session still worked');
  t.equal(refused.output.rcpt_to?.code, 550);
  t.match(refused.output.rcpt_to?.text, /no such user/);
  t.same(seen.rcpt_to, ['postmaster@example.test', 'nobody@example.test']);
  t.equal(seen.data, 0);
});

t.test('failures: refused port, a greeting other than 220, silence, policy', async (t) => {
  const { port } = await serve(t, {});
  const gone = net.createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const closedPort = (gone.address() as AddressInfo).port;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  const refused = await smtpProbe.run(`127.0.0.1:${closedPort}`, params(), ctx());
  t.equal(refused.error_class, 'refused');
  t.equal(refused.output.timing.connect_ms, null);

  const busy = net.createServer((s) => s.end('554 5.7.1 go away\r\n'));
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => busy.close());
  const r554 = await smtpProbe.run(`127.0.0.1:${(busy.address() as AddressInfo).port}`, params(), ctx());
  t.equal(r554.success, false);
  t.equal(r554.error_class, 'target');
  t.equal(r554.output.banner?.code, 554);

  const silent = net.createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => { silent.close(); });
  const quiet = await smtpProbe.run(`127.0.0.1:${(silent.address() as AddressInfo).port}`, params({ timeout_ms: 1000 }), ctx());
  t.equal(quiet.error_class, 'timeout');
  t.type(quiet.output.timing.connect_ms, 'number');
  t.equal(quiet.output.banner, null);

  const blocked = await smtpProbe.run(`127.0.0.1:${port}`, params(), ctx(DEFAULT_POLICY));
  t.equal(blocked.error_class, 'blocked');
});
