import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * POST /v1/domains/combos/preview through the app: counts, cap rules, validation, and the
 * availability of a sample asked of a loopback RDAP server named by a bootstrap file: a domain
 * object → registered, 404 → available, 503 → unknown.
 */

t.test('combination preview: counts, cap, sample, RDAP availability', async (t) => {
  const seen: string[] = [];
  const rdap = createServer((req, res) => {
    seen.push(req.url ?? '');
    const name = decodeURIComponent((req.url ?? '').replace('/rdap/domain/', ''));
    if (name.startsWith('taken')) {
      res.setHeader('content-type', 'application/rdap+json');
      return res.end(JSON.stringify({ objectClassName: 'domain', ldhName: name, status: ['active'] }));
    }
    if (name.startsWith('broken')) { res.statusCode = 503; return res.end(); }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => rdap.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(path.join(tmpdir(), 'combo-rdap-'));
  t.teardown(() => { rdap.closeAllConnections(); rdap.close(); rmSync(dir, { recursive: true, force: true }); });
  const base = `http://127.0.0.1:${(rdap.address() as AddressInfo).port}/rdap/`;
  writeFileSync(path.join(dir, 'dns.json'), JSON.stringify({ version: '1.0', services: [[['test'], [base]]] }));
  const { app } = await testApp(t, { config: { rdap_bootstrap_file: path.join(dir, 'dns.json'), delivery_allow_cidrs: ['127.0.0.0/8'], lookup_timeout_ms: 2000 } });
  const alice = await registerUser(app);
  const preview = (body: unknown) => call(app, 'POST', '/v1/domains/combos/preview', { token: alice.access_token, body });

  let r = await call(app, 'POST', '/v1/domains/combos/preview', { body: { slots: [{ kind: 'number', variant: '2' }], tlds: ['com'] } });
  t.equal(r.status, 401, 'an account is needed');

  r = await preview({ slots: [{ kind: 'letter' }, { kind: 'number' }], tlds: ['COM', 'io', 'com'], exclude: 'z0' });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(r.body.data, { total: 2 * 25 * 9, total_exact: '450', effective: 450, capped: false, cap: 1000 });
  t.equal(r.body.data.sample.length, 450);
  t.equal(r.body.data.sample[0], 'a1.com');
  t.equal(r.body.data.sample[449], 'y9.io');
  t.notOk('availability' in r.body.data);

  r = await preview({ slots: [{ kind: 'letter', variant: '3' }], tlds: ['net'], cap: 0 });
  t.match(r.body.data, { total: 17576, effective: 1000, capped: true, cap: 1000 }, 'cap <= 0 means 1000');
  r = await preview({ slots: [{ kind: 'letter', variant: '3' }], tlds: ['net'], cap: 99999 });
  t.match(r.body.data, { effective: 5000, capped: true, cap: 5000 }, 'clamped to 5000');
  t.equal(new Set(r.body.data.sample).size, 5000);

  r = await preview({ slots: [{ kind: 'letter', variant: '6' }, { kind: 'letter', variant: '6' }, { kind: 'letter', variant: '6' }], tlds: ['com'], cap: 3 });
  t.equal(r.body.data.total_exact, (26n ** 18n).toString(), 'the exact total as text');
  t.equal(r.body.data.sample.length, 3);
  t.equal(r.body.data.sample[0], 'aaaaaaaaaaaaaaaaaa.com', 'the first draw is the first name');
  t.equal(new Set(r.body.data.sample).size, 3);

  for (const [body, field] of [
    [{ slots: [], tlds: ['com'] }, 'slots'],
    [{ slots: [{ kind: 'emoji' }], tlds: ['com'] }, 'slots[0].kind'],
    [{ slots: [{ kind: 'number' }], tlds: ['.com'] }, 'tlds[0]'],
    [{ slots: [{ kind: 'number' }], tlds: [] }, 'tlds'],
    [{ slots: [{ kind: 'number', variant: '9' }], tlds: ['com'] }, 'slots[0].variant'],
    [{ slots: [{ kind: 'number' }], tlds: ['com'], extra: 1 }, ''],
  ] as const) {
    r = await preview(body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body.error.code, 'VALIDATION_FAILED');
    if (field) t.ok(JSON.stringify(r.body.error.details).includes(field), `names ${field}`);
  }

  r = await preview({ slots: [{ kind: 'word', variant: 'tech' }], tlds: ['test'], check_availability: true, cap: 3 });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.same(r.body.data.availability.map((a: any) => [a.domain, a.status]), r.body.data.sample.map((d: string) => [d, 'available']));
  r = await preview({ slots: [{ kind: 'literal', literal: 'taken' }, { kind: 'number' }], tlds: ['test'], check_availability: true });
  t.equal(r.body.data.availability.length, 10, 'at most 10 names asked');
  t.ok(r.body.data.availability.every((a: any) => a.status === 'registered'));
  r = await preview({ slots: [{ kind: 'literal', literal: 'broken' }], tlds: ['test', 'nowhere'], check_availability: true });
  t.match(r.body.data.availability, [{ domain: 'broken.test', status: 'unknown', detail: /HTTP 503/ }, { domain: 'broken.nowhere', status: 'unknown', detail: /no RDAP server/ }]);
  t.ok(seen.includes('/rdap/domain/taken0.test'));
});
