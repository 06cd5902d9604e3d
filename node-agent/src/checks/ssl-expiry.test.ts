/**
 * ssl_expiry against real TLS servers with certificates from the test CA: valid, expired,
 * expiring in three days, for the wrong name, and from a CA the node does not trust.
 */
import t from 'tap';
import { checkResultSchema } from '@vantage/shared-protocol';
import { makeTestPki } from '../probes/test-support/certs.js';
import { startHttpServer } from '../probes/test-support/http-server.js';
import { createChecks } from './registry.js';
import { runCheckOnce } from './test-support/run.js';

t.test('ssl_expiry', async (t) => {
  const pki = await makeTestPki();
  const checks = createChecks({ ca: pki.ca.cert });
  const valid = await startHttpServer({ tls: pki.leaf });
  const expired = await startHttpServer({ tls: pki.expired });
  const soon = await startHttpServer({ tls: pki.expiringSoon });
  const wrong = await startHttpServer({ tls: pki.wrongName });
  t.teardown(() => Promise.all([valid, expired, soon, wrong].map((s) => s.close())));
  const run = async (target: string, config: unknown = {}, c = checks) => {
    const r = await runCheckOnce(c, 'ssl_expiry', target, config);
    checkResultSchema.parse(r);
    return r;
  };

  t.test('a valid certificate: issuer, subject, dates, SANs, chain and name', async (t) => {
    const r = await run(`localhost:${valid.port}`);
    t.equal(r.success, true, r.error ?? '');
    t.match(r.output, {
      servername: 'localhost', subject: 'localhost', issuer: 'Vantage Test CA', chain_valid: true, chain_error: null, hostname_match: true,
      san: ['DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1'], tls_version: /^TLSv1\.[23]$/,
    });
    t.ok(r.output!.days_until_expiry! >= 363);
    t.match(r.output!.fingerprint_sha256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const url = await run(`https://127.0.0.1:${valid.port}/`);
    t.equal(url.success, true, 'an https:// URL and an IP (no SNI) work too');
    t.equal(url.output!.servername, null);
  });

  t.test('expiring in three days is down below min_days_remaining (default 14) or critical_days, up below only warn_days', async (t) => {
    const byDefault = await run(`localhost:${soon.port}`);
    t.equal(byDefault.success, false, 'default min_days_remaining 14');
    t.match(byDefault.error, /^certificate expires in 3 days .*fewer than min_days_remaining 14$/);
    const r = await run(`localhost:${soon.port}`, { min_days_remaining: 0, critical_days: 7, warn_days: 14 });
    t.equal(r.success, false);
    t.equal(r.error_class, 'assertion');
    t.equal(r.output!.days_until_expiry, 3);
    t.match(r.error, /^certificate expires in 3 days .*fewer than min_days_remaining 7$/);
    const ok = await run(`localhost:${soon.port}`, { min_days_remaining: 3, critical_days: 3 });
    t.equal(ok.success, true, '3 whole days left is not fewer than 3');
  });

  t.test('expired, wrong name and untrusted chain are down', async (t) => {
    const old = await run(`localhost:${expired.port}`);
    t.equal(old.success, false);
    t.match(old.error, /^certificate expired on /);
    t.equal(old.output!.chain_valid, false);
    t.equal(old.output!.chain_error, 'CERT_HAS_EXPIRED');
    const name = await run(`localhost:${wrong.port}`);
    t.equal(name.success, false);
    t.equal(name.output!.chain_valid, true);
    t.equal(name.output!.hostname_match, false);
    t.match(name.error, /^certificate is not valid for localhost \(DNS:other\.test\)/);
    const untrusted = await run(`localhost:${valid.port}`, {}, createChecks());
    t.equal(untrusted.success, false);
    t.match(untrusted.output, { chain_valid: false, hostname_match: true, chain_error: /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED/ });
  });

  t.test('no TLS server: connection errors are classified', async (t) => {
    const refused = await run('127.0.0.1:1');
    t.equal(refused.error_class, 'refused');
    const port = await run(`localhost`, { port: valid.port });
    t.equal(port.success, true, 'config.port when the target has none');
  });
});
