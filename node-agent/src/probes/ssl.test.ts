import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import t from 'tap';
import pino from 'pino';
import { sslOutputSchema, sslParamsSchema } from '@vantage/shared-protocol';
import { createSslProbe, sslProbe } from './ssl.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { makeTestPki, startAuditServer } from './test-support/ssl-audit-pki.js';

/*
 * The ssl probe against real TLS servers on loopback (the SSL audit's test PKI): the audit of the
 * resolved address, the node's target policy before any connection, and the failure classes.
 */

const log = pino({ level: 'silent' });
const LOOPBACK: TargetPolicy = { allow_private: false, allow_cidrs: ['127.0.0.0/8'] };
const ctx = (policy: TargetPolicy = LOOPBACK) => ({ signal: new AbortController().signal, policy, log });
const pki = makeTestPki();
t.teardown(() => pki.cleanup());
const probe = createSslProbe({ extra_ca_pem: pki.ca.cert });
const params = sslParamsSchema.parse({ timeout_ms: 3000 });

t.test('a good certificate with stapled OCSP and HSTS: the whole audit, valid through the extra CA', async (t) => {
  const port = await startAuditServer(t, pki.good, { ocsp: pki.ocsp_good, hsts: 'max-age=31536000' });
  const r = await probe.run(`localhost:${port}`, params, ctx());
  t.equal(r.success, true, r.error ?? '');
  sslOutputSchema.parse(r.output);
  t.match(r.output, { port, audit: { domain: 'localhost', port, valid: true, validation_error: null, ocsp_status: 'good', hsts_max_age_s: 31_536_000, grade: 'A+' } });
  t.ok(r.output.resolved_address === '127.0.0.1' || r.output.resolved_address === '::1', `resolved ${r.output.resolved_address}`);
  t.same(r.output.audit!.tls_versions.map((v) => v.supported), [false, false, true, true]);
});

t.test('without the extra CA the test CA is not trusted (system roots only)', async (t) => {
  const port = await startAuditServer(t, pki.good);
  const r = await createSslProbe({ extra_ca_pem: null }).run(`localhost:${port}`, params, ctx());
  t.equal(r.success, true, 'an untrusted chain is an audit result, not a failure');
  t.match(r.output.audit, { valid: false, validation_error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', grade: 'F' });
});

t.test('a private target under the default policy is refused before any connection', async (t) => {
  let connections = 0;
  const server = createTcpServer((s) => { connections++; s.destroy(); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const r = await sslProbe.run(`127.0.0.1:${(server.address() as AddressInfo).port}`, params, ctx(DEFAULT_POLICY));
  t.match(r, { success: false, error_class: 'blocked', error: /127\.0\.0\.1.*loopback/i });
  t.match(r.output, { resolved_address: null, audit: null });
  t.equal(connections, 0, 'no connection was opened');
});

t.test('a silent server: timeout; a closed port: refused', async (t) => {
  const silent = createTcpServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => silent.close());
  const slow = await probe.run(`127.0.0.1:${(silent.address() as AddressInfo).port}`, sslParamsSchema.parse({ timeout_ms: 300 }), ctx());
  t.match(slow, { success: false, error_class: 'timeout', output: { audit: null, resolved_address: '127.0.0.1' } });

  const closed = createTcpServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const refused = await probe.run(`127.0.0.1:${port}`, params, ctx());
  t.match(refused, { success: false, error_class: 'refused', output: { audit: null } });
});

t.test('a target that is not host[:port] is rejected as input', async (t) => {
  await t.rejects(probe.run('https://example.test/', params, ctx()), { name: 'ProbeInputError' });
});
