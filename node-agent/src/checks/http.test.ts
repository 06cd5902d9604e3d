/**
 * http, https and keyword checks against real local servers: expected status, assertions on
 * status, headers, body and JSON, certificates from the test CA (valid, expired, expiring in
 * three days, wrong name) with and without ignore_tls_errors, keyword (inverted, case).
 */
import t from 'tap';
import { checkResultSchema, monitorResultEnvelopeSchema, newId } from '@vantage/shared-protocol';
import { makeTestPki } from '../probes/test-support/certs.js';
import { startHttpServer } from '../probes/test-support/http-server.js';
import { createPatternSandbox } from './assertions/sandbox.js';
import { createChecks } from './registry.js';
import { runCheckOnce } from './test-support/run.js';

t.test('http, https and keyword checks', async (t) => {
  const pki = await makeTestPki();
  const sandbox = createPatternSandbox();
  const checks = createChecks({ ca: pki.ca.cert, sandbox });
  const plain = await startHttpServer();
  const valid = await startHttpServer({ tls: pki.leaf });
  const expired = await startHttpServer({ tls: pki.expired });
  const soon = await startHttpServer({ tls: pki.expiringSoon });
  const wrong = await startHttpServer({ tls: pki.wrongName });
  t.teardown(async () => {
    await Promise.all([plain, valid, expired, soon, wrong].map((s) => s.close()));
    await sandbox.close();
  });
  const check = async <T extends 'http' | 'https' | 'keyword'>(type: T, target: string, config: unknown = {}) => {
    const r = await runCheckOnce(checks, type, target, config);
    checkResultSchema.parse(r); // every result matches the wire shape
    monitorResultEnvelopeSchema.parse({ ...r, result_id: newId('result'), task_id: null });
    return r;
  };

  t.test('http: up on a 2xx with every assertion listed', async (t) => {
    const r = await check('http', `${plain.origin}/echo`, {
      method: 'POST', body: '{"hello":"world"}', headers: { 'x-token': 'abc' },
      assertions: [
        { type: 'status_code', op: 'eq', value: 200 },
        { type: 'json_path', path: '$.method', op: 'eq', value: 'POST' },
        { type: 'json_path', path: '$.headers["x-token"]', op: 'eq', value: 'abc' },
        { type: 'body_regex', op: 'regex', value: 'hello\\\\?"?:' },
        { type: 'header_value', header: 'content-type', op: 'contains', value: 'json' },
        { type: 'response_time', op: 'lt', value: 30_000 },
      ],
    });
    t.equal(r.success, true, r.error ?? '');
    t.equal(r.assertions.length, 6);
    t.ok(r.assertions.every((a) => a.ok));
    t.equal(r.assertions[1]!.actual, 'POST');
    t.equal(r.output!.status_code, 200);
    t.equal(r.output!.certificate_error, null);
  });

  t.test('http: a status outside expected_status is down (target); a chosen one is up', async (t) => {
    const down = await check('http', `${plain.origin}/status/503`);
    t.equal(down.success, false);
    t.equal(down.error_class, 'target');
    t.equal(down.error, 'HTTP status 503 is not in expected_status 200-399');
    const wanted = await check('http', `${plain.origin}/status/404`, { expected_status: '404' });
    t.equal(wanted.success, true, 'a 404 that is expected is up');
    const redirect = await check('http', `${plain.origin}/to?url=/ok&code=301`, { follow_redirects: false, expected_status: '200-299' });
    t.equal(redirect.success, false);
    t.equal(redirect.output!.status_code, 301);
  });

  t.test('http: the first failing assertion is the error; all are evaluated', async (t) => {
    const r = await check('http', `${plain.origin}/ok`, {
      assertions: [
        { type: 'body_contains', op: 'contains', value: 'hello' },
        { type: 'body_contains', op: 'contains', value: 'goodbye' },
        { type: 'status_code', op: 'eq', value: 201 },
      ],
    });
    t.equal(r.success, false);
    t.equal(r.error_class, 'assertion');
    t.equal(r.error, 'body does not contain "goodbye"');
    t.same(r.assertions.map((a) => a.ok), [true, false, false]);
    t.equal(r.assertions[2]!.actual, 200);
  });

  t.test('http: no response fails with the network error, assertions listed as not evaluated', async (t) => {
    const r = await check('http', 'http://127.0.0.1:1/', { assertions: [{ type: 'status_code', op: 'eq', value: 200 }] });
    t.equal(r.success, false);
    t.equal(r.error_class, 'refused');
    t.same(r.assertions.map((a) => [a.ok, a.detail]), [[false, 'not evaluated: no response']]);
  });

  t.test('http: the body is read up to the cap and the result says it was cut', async (t) => {
    const small = createChecks({ sandbox, body_max_bytes: 100_000 });
    const r = await runCheckOnce(small, 'http', `${plain.origin}/huge`, { assertions: [{ type: 'body_contains', op: 'contains', value: 'zzz' }] });
    t.equal(r.output!.body_truncated, true);
    t.equal(r.success, false);
    t.match(r.error, /does not contain "zzz" \(only the first 100000 characters were read\)/);
  });

  t.test('https: a valid certificate is up; ssl_days_remaining is asserted', async (t) => {
    const r = await check('https', `${valid.origin}/ok`, { assertions: [{ type: 'ssl_days_remaining', op: 'gt', value: 14 }] });
    t.equal(r.success, true, r.error ?? '');
    t.ok(r.assertions[0]!.ok);
    t.ok((r.assertions[0]!.actual as number) >= 363);
  });

  t.test('https: expiring in three days fails an ssl_days_remaining assertion', async (t) => {
    const r = await check('https', `${soon.origin}/ok`, { assertions: [{ type: 'ssl_days_remaining', op: 'gte', value: 14 }] });
    t.equal(r.success, false);
    t.equal(r.assertions[0]!.actual, 3);
    t.equal(r.error, 'ssl_days_remaining 3 days is less than 14 days');
  });

  t.test('https: expired and wrong-name certificates are down unless ignore_tls_errors', async (t) => {
    for (const [srv, reason] of [[expired, 'CERT_HAS_EXPIRED'], [wrong, 'ERR_TLS_CERT_ALTNAME_INVALID']] as const) {
      const down = await check('https', `${srv.origin}/ok`);
      t.equal(down.success, false);
      t.equal(down.error_class, 'target');
      t.match(down.error, reason);
      t.equal(down.output!.status_code, null);
      const ignored = await check('https', `${srv.origin}/ok`, { ignore_tls_errors: true, assertions: [{ type: 'body_contains', op: 'contains', value: 'hello' }] });
      t.equal(ignored.success, true, `${reason} ignored: ${ignored.error}`);
      t.equal(ignored.output!.certificate_error, reason);
      t.equal(ignored.output!.status_code, 200);
    }
    const httpType = await check('http', `${expired.origin}/ok`);
    t.equal(httpType.success, false, 'an http monitor on an https URL verifies the certificate too');
  });

  t.test('https: an http:// target is refused', async (t) => {
    const r = await check('https', `${plain.origin}/ok`);
    t.equal(r.error_class, 'rejected');
  });

  t.test('keyword: present, absent, inverted, case', async (t) => {
    const found = await check('keyword', `${plain.origin}/ok`, { keyword: 'HELLO' });
    t.equal(found.success, true, 'case-insensitive by default');
    t.equal(found.output!.keyword_found, true);
    const cased = await check('keyword', `${plain.origin}/ok`, { keyword: 'HELLO', case_sensitive: true });
    t.equal(cased.success, false);
    t.equal(cased.error, 'body does not contain the keyword "HELLO"');
    t.equal(cased.error_class, 'assertion');
    const inverted = await check('keyword', `${plain.origin}/ok`, { keyword: 'hello', invert: true });
    t.equal(inverted.success, false);
    t.equal(inverted.error, 'body contains the keyword "hello"');
    const absent = await check('keyword', `${plain.origin}/ok`, { keyword: 'maintenance', invert: true });
    t.equal(absent.success, true);
    t.equal(absent.output!.keyword_found, false);
  });
});
