/**
 * The API gets integer HTTP timings (docs/api/probes.md); the node's own log keeps the unrounded floats at
 * debug level, for users who want sub-millisecond figures from their node. response_ms is the
 * network's time only: the sum of the phases, with none of our client set-up between them.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { httpParamsSchema } from '@vantage/shared-protocol';
import { httpProbe } from '../http.js';
import { measureHttp } from './measure.js';
import { startHttpServer } from '../test-support/http-server.js';

t.test('debug log carries response_ms and the phases before rounding', async (t) => {
  const srv = await startHttpServer();
  t.teardown(() => srv.close());
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const log = pino({ level: 'debug' }, sink);
  const r = await httpProbe.run(`${srv.origin}/ok`, httpParamsSchema.parse({}), { signal: new AbortController().signal, policy: { allow_private: true, allow_cidrs: [] }, log });
  t.equal(r.success, true);
  const entry = lines.map((l) => JSON.parse(l) as Record<string, any>).find((l) => l.msg === 'http timing before rounding (ms)');
  t.ok(entry, 'one debug line for the check');
  t.equal(Math.round(entry!.response_ms), r.output.response_ms, 'response_ms rounds to the API value');
  t.equal(Math.round(entry!.timing.ttfb_ms), r.output.timing!.ttfb_ms, 'each phase rounds to the API value');
  t.equal(entry!.target, `${srv.origin}/ok`);
});

t.test('response_ms is the sum of the phases: our set-up between them is not counted', async (t) => {
  const srv = await startHttpServer();
  t.teardown(() => srv.close());
  for (const path of ['/ok', '/slow?ms=20', '/redirect/2']) {
    const m = await measureHttp(`${srv.origin}${path}`, httpParamsSchema.parse({}), { allow_private: true, allow_cidrs: [] }, new AbortController().signal);
    t.equal(m.failure, null, path);
    const sum = Object.values(m.phases!).reduce((a, b) => a + b, 0);
    t.ok(Math.abs(m.total_ms - sum) < 1e-6, `${path}: total ${m.total_ms.toFixed(4)} = phases ${sum.toFixed(4)}`);
  }
});
