import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '@vantage/shared-protocol';
import t from 'tap';
import { seedUser } from '../checks/test-support.js';
import { parseBootstrap } from '../domains/bootstrap.js';
import { testDatabase } from '../test-support/db.js';
import { runDomainChecks } from './domain-expiry-job.js';

/* domain_expiry runs against a loopback RDAP server: thresholds, one run per round across instances. */

t.test('down below min_days_remaining; once per round even with two instances', async (t) => {
  const { sql } = await testDatabase(t);
  const expiry: Record<string, string> = { 'soon.test': '2026-12-01T00:00:00Z', 'later.test': '2027-06-01T00:00:00Z' };
  let requests = 0;
  const rdap = createServer((req, res) => {
    requests++;
    const name = decodeURIComponent(req.url!.split('/').pop()!);
    if (!expiry[name]) { res.statusCode = 404; res.end(); return; }
    res.setHeader('content-type', 'application/rdap+json');
    res.end(JSON.stringify({ objectClassName: 'domain', ldhName: name, events: [{ eventAction: 'expiration', eventDate: expiry[name] }] }));
  });
  await new Promise<void>((r) => rdap.listen(0, '127.0.0.1', r));
  t.teardown(() => rdap.close());
  const lookup = {
    bootstrap: parseBootstrap(JSON.stringify({ version: '1.0', services: [[['test'], [`http://127.0.0.1:${(rdap.address() as AddressInfo).port}/`]]] })),
    whois_server: () => '127.0.0.1:1', timeout_ms: 5000,
  };
  const user = await seedUser(sql);
  const ids: Record<string, string> = {};
  for (const [name, config] of [['soon.test', { min_days_remaining: 30 }], ['later.test', { min_days_remaining: 30 }], ['gone.test', {}]] as const) {
    ids[name] = newId('monitor');
    await sql`INSERT INTO monitors (id, user_id, name, type, target, config, interval_s, node_count)
      VALUES (${ids[name]}, ${user}, ${name}, 'domain_expiry', ${name}, ${sql.json(config)}, 1800, 0)`;
  }
  const now = () => new Date('2026-11-22T12:00:00Z');
  const [a, b] = await Promise.all([runDomainChecks(sql, lookup, now), runDomainChecks(sql, lookup, now)]);
  t.equal(a + b, 3, 'each monitor checked once by one of the two passes');
  t.equal(await runDomainChecks(sql, lookup, now), 0, 'not due again within its round');
  const rows = await sql<{ monitor_id: string; success: boolean; error: string | null; error_class: string | null; output: any }[]>`
    SELECT s.monitor_id, c.success, c.error, c.error_class, c.output FROM checks c JOIN check_series s ON s.id = c.series_id WHERE s.node_id IS NULL`;
  const by = new Map(rows.map((r) => [r.monitor_id, r]));
  t.match(by.get(ids['soon.test']!), { success: false, error_class: 'assertion', error: 'soon.test expires in 8 days (2026-12-01T00:00:00.000Z), fewer than 30', output: { source: 'rdap', days_until_expiry: 8 } });
  t.match(by.get(ids['later.test']!), { success: true, error: null, output: { days_until_expiry: 190 } });
  t.match(by.get(ids['gone.test']!), { success: false, error_class: 'target', output: null, error: /not found/ });
});
