/**
 * dns_ms is the time spent asking a resolver: 0 for an IP-literal URL (no look-up, as curl's
 * namelookup time), 0 for localhost (loopback by rule), measured for a name the resolver answers.
 * Both paths that time HTTP: the probe (measureHttp) and the monitor checks (httpExchange).
 */
import { lookup } from 'node:dns/promises';
import os from 'node:os';
import t from 'tap';
import { httpParamsSchema } from '@vantage/shared-protocol';
import { httpExchange } from '../../checks/http-request.js';
import { createPatternSandbox } from '../../checks/assertions/sandbox.js';
import { toHttpOutput } from '../http.js';
import type { TargetPolicy } from '../target-policy.js';
import { silentLogger } from '../test-support/logger.js';
import { startHttpServer } from '../test-support/http-server.js';
import { measureHttp } from './measure.js';

const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const params = httpParamsSchema.parse({});

t.test('dns_ms', async (t) => {
  const srv = await startHttpServer();
  t.teardown(() => srv.close());

  t.test('an IP-literal URL has no look-up: dns_ms is exactly 0, on every hop', async (t) => {
    for (let i = 0; i < 5; i++) {
      const m = await measureHttp(`http://127.0.0.1:${srv.port}/redirect/1`, params, ALLOW, new AbortController().signal);
      t.equal(m.failure, null);
      t.equal(m.phases!.dns_ms, 0, 'float, before rounding');
      t.equal(toHttpOutput(m).timing!.dns_ms, 0);
      t.ok(m.total_ms > 0, 'the exchange itself is still timed');
    }
  });

  t.test('localhost is loopback by rule: no look-up, dns_ms 0', async (t) => {
    const m = await measureHttp(`http://localhost:${srv.port}/ok`, params, ALLOW, new AbortController().signal);
    t.equal(m.failure, null);
    t.equal(m.phases!.dns_ms, 0);
  });

  // The machine's own name: answered by the system resolver (hosts file or nss) on any machine.
  const name = os.hostname();
  const known = await lookup(name).then(() => true, () => false);
  t.test('a host name the resolver answers is still timed', { skip: !known && `${name} does not resolve here` }, async (t) => {
    const m = await measureHttp(`http://${name}:${srv.port}/ok`, params, ALLOW, new AbortController().signal);
    t.ok(m.last!.phases.dns_ms > 0, `dns_ms ${m.last!.phases.dns_ms} > 0`);
  });

  t.test('a monitor check of an IP-literal URL reports dns_ms 0 too', async (t) => {
    const sandbox = createPatternSandbox();
    t.teardown(() => sandbox.close());
    const ctx = { signal: new AbortController().signal, policy: ALLOW, log: silentLogger(), monitor_id: 'm_0000000000testtesttesttest', scheduled_at: new Date().toISOString() };
    const ex = await httpExchange(`http://127.0.0.1:${srv.port}/ok`, params, ctx, { body_max_bytes: 1024, sandbox });
    t.equal(ex.failure, null);
    t.equal(ex.measure.last!.phases.dns_ms, 0);
    t.equal(ex.output.timing!.dns_ms, 0);
  });
});
