import type { Config } from '../config/index.js';
import { createLogger } from '../log.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import { call, testApp } from '../test-support/app.js';
import { runDueOrders } from './order-jobs.js';
import type { TestBind, TestPebble } from './test-servers.js';

/*
 * The app the ACME tests run: Pebble as the ACME directory, a BIND 9 as the resolver and the
 * authoritative server Vantage checks TXT records at, failed steps retried at once (2 attempts),
 * and a driver that runs the order job (the function main.ts runs) until an order gets where the
 * test wants it.
 */

interface Teardown { teardown(fn: () => unknown): void }

/**
 * The test app on `pebble`, checking records at `bind`, with `drive(id, token, done)`: run due
 * steps until `done(order)` (bounded 180 s). `config` adds to the app's settings (the console's
 * build, the jobs' interval).
 */
export async function acmeTestApp(t: Teardown, pebble: TestPebble, bind: TestBind, config: Partial<Config> = {}) {
  const made = await testApp(t, { config: {
    certificates_acme_directory_url: pebble.directory_url, certificates_acme_ca_file: pebble.ca_file, certificates_ca_name: 'pebble',
    certificates_dns_resolvers: [`127.0.0.1:${bind.port}`], certificates_dns_port: bind.port,
    certificates_retry_base_ms: 0, certificates_max_attempts: 2, certificates_propagation_timeout_ms: 30_000, ...config,
  } });
  const jobDeps = { sql: made.deps.sql, config: made.deps.config, box: secretBoxOf(made.deps.config), log: createLogger('silent') };
  const drive = async (id: number, token: string, done: (o: any) => boolean): Promise<any> => {
    const until = Date.now() + 180_000;
    for (;;) {
      await runDueOrders(jobDeps);
      const o = (await call(made.app, 'GET', `/v1/certificates/orders/${id}`, { token })).body.data;
      if (done(o)) return o;
      if (Date.now() > until) throw new Error(`order ${id} stuck: ${JSON.stringify(o)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  return { ...made, drive };
}
