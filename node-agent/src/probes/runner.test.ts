import net from 'node:net';
import t from 'tap';
import pino from 'pino';
import { checkSpecSchema } from '@vantage/shared-protocol';
import { runCheck } from './runner.js';
import { startHttpServer } from './test-support/http-server.js';

// runCheck dispatches through the real registry (registry.ts) with real probes.
const log = pino({ level: 'silent' });
const ALLOW = { allow_private: true, allow_cidrs: [] };

t.test('runCheck dispatches tcp and http checks through the registry', async (t) => {
  const tcp = net.createServer((c) => c.destroy());
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', () => resolve()));
  const http = await startHttpServer();
  t.teardown(() => { tcp.close(); return http.close(); });

  const tcpCheck = checkSpecSchema.parse({ type: 'tcp', target: `127.0.0.1:${(tcp.address() as net.AddressInfo).port}`, params: {} });
  const tcpRun = await runCheck(tcpCheck, { timeout_ms: 10_000, policy: ALLOW, log });
  t.match(tcpRun, { type: 'tcp', success: true, output: { state: 'open' } });

  const httpCheck = checkSpecSchema.parse({ type: 'http', target: `${http.origin}/ok`, params: {} });
  const httpRun = await runCheck(httpCheck, { timeout_ms: 10_000, policy: ALLOW, log });
  t.match(httpRun, { type: 'http', success: true, output: { status_code: 200 } });

  const slow = checkSpecSchema.parse({ type: 'http', target: `${http.origin}/slow?ms=20000`, params: {} });
  const cut = await runCheck(slow, { timeout_ms: 300, policy: ALLOW, log });
  t.match(cut, { type: 'http', success: false, error_class: 'timeout' });
  t.ok(cut.output, 'the http probe returned its partial output within the grace period');

  const blocked = await runCheck(httpCheck, { timeout_ms: 10_000, policy: { allow_private: false, allow_cidrs: [] }, log });
  t.match(blocked, { success: false, error_class: 'blocked' });
});
