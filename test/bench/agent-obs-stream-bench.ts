/**
 * Benchmark (not a test): the agent-obs event stream (GET /v1/agent-obs/events/stream) with
 * `--clients` (default 1000) concurrent SSE clients on one control-plane instance (a real
 * bin/control-plane.mjs process, so its memory is its own). Reports the process's RSS before the
 * clients connect and with them connected (the added memory per client), and the fan-out latency:
 * for each of `--events` events, recorded one at a time by an ingest on the same database (the
 * result sink nodes report to), the time from the commit of the event to its frame reaching each
 * client (p50 / p99 / max over every client and event). Prints a Markdown table
 * (measure | ours | peer | difference | goal). A scratch database at TEST_DATABASE_URL, dropped after.
 *
 *   npx tsx test/bench/agent-obs-stream-bench.ts [--clients 1000] [--events 20]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createCheckStore } from '../../control-plane/src/checks/ingest.js';
import { loadConfig } from '../../control-plane/src/config/index.js';
import { createMailer } from '../../control-plane/src/delivery/mailer.js';
import { createLogger } from '../../control-plane/src/log.js';
import { createResultSink } from '../../control-plane/src/probes/sink.js';
import { controlPlaneProcess, freePort } from '../../control-plane/src/test-support/control-plane-process.js';
import { testDatabase } from '../../control-plane/src/test-support/db.js';
import { withAgentObs } from '../../control-plane/src/agent-obs/ingest.js';
import { llmResult, placeBacking, roundsFrom } from '../../control-plane/src/agent-obs/test-support.js';
import { quantile } from './lib/stats.js';

const { values } = parseArgs({ options: { clients: { type: 'string', default: '1000' }, events: { type: 'string', default: '20' } } });
const clients_n = Number(values.clients);
const events_n = Number(values.events);
const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(what: string, check: () => boolean | Promise<boolean>, timeout_ms: number) {
  const end = Date.now() + timeout_ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  const { url: database_url, sql } = await testDatabase(t);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const cp = controlPlaneProcess(t, {
    VANTAGE_DATABASE_URL: database_url, VANTAGE_HOST: '127.0.0.1', VANTAGE_PORT: String(port), VANTAGE_LOG_LEVEL: 'warn',
    VANTAGE_DATA_DIR: '/tmp/vantage-agent-obs-bench', VANTAGE_PROBE_ALLOW_CIDRS: '127.0.0.0/8', VANTAGE_PLAN: 'business', VANTAGE_REGISTRATION: 'open',
    VANTAGE_RATE_LIMIT_KEYED: '1000000', VANTAGE_RATE_LIMIT_ANONYMOUS: '1000000', VANTAGE_RATE_LIMIT_UPGRADES: '1000000',
  }, 120_000);
  await cp.start(base);
  const pid = cp.pid()!;
  const post = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    const json = await res.json() as { data: any };
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const auth = await post('/v1/auth/register', { email: `bench-${Date.now()}@example.test`, password: 'bench-password-123456' });
  const m = await post('/v1/agent-obs/monitors', { agent_name: 'bench', type: 'tool', endpoint_url: 'http://127.0.0.1:9/tool', frequency_seconds: 10, failure_threshold: {} }, auth.access_token);
  const [node] = await placeBacking(sql, m.check_monitor_id, 1);
  const config = loadConfig({}, { database_url, log_level: 'silent' });
  const log = createLogger('silent');
  const sink = createResultSink({ sql, log, config, checks: withAgentObs(createCheckStore({ config }), { config, log, mail: createMailer({ sql, log, config }) }) });

  // Warm the server (JIT, the stream hub) with a few clients first, then measure.
  const rss_before = rssKiB(pid);
  const arrivals: Array<Map<string, number>> = [];
  const controllers: AbortController[] = [];
  let connected = 0;
  const connect = async (i: number) => {
    const ac = new AbortController();
    controllers.push(ac);
    const res = await fetch(`${base}/v1/agent-obs/events/stream`, { headers: { authorization: `Bearer ${auth.access_token}` }, signal: ac.signal });
    if (res.status !== 200) throw new Error(`stream: ${res.status}`);
    connected++;
    const seen = new Map<string, number>();
    arrivals[i] = seen;
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          const now = performance.now();
          buf += value;
          let cut: number;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const id = /^id: (.+)$/m.exec(buf.slice(0, cut))?.[1];
            buf = buf.slice(cut + 2);
            if (id) seen.set(id, now);
          }
        }
      } catch { /* aborted at the end */ }
    })();
  };
  for (let i = 0; i < clients_n; i += 50) await Promise.all(Array.from({ length: Math.min(50, clients_n - i) }, (_, j) => connect(i + j)));
  await until('every client connected', () => connected === clients_n, 120_000);
  await sleep(2000);
  const rss_with = rssKiB(pid);

  const latencies: number[] = [];
  const nextRound = roundsFrom(m.check_monitor_id, 10, -5000);
  for (let e = 0; e < events_n; e++) {
    const r = llmResult(m.check_monitor_id, nextRound(), { type: 'tool_api' });
    await sink.ingest(node!, [r]);
    const committed = performance.now();
    const [row] = await sql<{ id: string }[]>`SELECT id FROM agent_obs_events ORDER BY seq DESC LIMIT 1`;
    await until(`event ${e} at every client`, () => arrivals.every((a) => a.has(row!.id)), 120_000);
    for (const a of arrivals) latencies.push(Math.max(0, a.get(row!.id)! - committed));
  }
  for (const ac of controllers) ac.abort();
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log([
    '| measure | ours | peer | difference | goal |', '|---|---|---|---|---|',
    `| agent-obs stream: control-plane RSS, idle → ${clients_n} SSE clients connected, MiB | ${(rss_before / 1024).toFixed(1)} → ${(rss_with / 1024).toFixed(1)} | — | ${(((rss_with - rss_before) / clients_n)).toFixed(1)} KiB per client | ${clients_n} clients on one instance |`,
    `| agent-obs stream: fan-out latency, commit → frame at each of ${clients_n} clients, p50 / p99 / max ms (${events_n} events) | ${quantile(latencies, 0.5).toFixed(1)} / ${quantile(latencies, 0.99).toFixed(1)} / ${Math.max(...latencies).toFixed(1)} | — | load average ${load} | |`,
  ].join('\n'));
} finally {
  for (const fn of teardowns) await fn();
}
