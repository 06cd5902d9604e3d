/**
 * Benchmark (not a test): tool calls through the MCP entry point on one instance, listening on
 * 127.0.0.1 with its own listener, driven by `--clients` official TypeScript SDK clients over
 * Streamable HTTP, calling one tool back to back for `--duration` seconds; every call authenticated
 * and recorded (a tool-call row). Two tools, one after the other: `list_nodes` (the node directory,
 * from Postgres, 20 seeded nodes) and `info_ip` (the IP information lookup, from the offline
 * databases). Each is paired in the same run with its peer: the same lookup through the /v1 API
 * (`GET /v1/nodes?page_size=20`, `GET /v1/info/ip?q=…`) with plain fetch and the same number of
 * concurrent loops. Rounds alternate (MCP, then /v1) `--rounds` times; the figures are medians over
 * rounds. Prints a Markdown table
 * (measure | ours | peer | difference | goal). A scratch database at TEST_DATABASE_URL, dropped after.
 *
 *   npx tsx test/bench/mcp-bench.ts [--clients 8] [--duration 5] [--rounds 3]
 */
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { addNode } from '../../control-plane/src/probes/test-support.js';
import { startMcpListener } from '../../control-plane/src/mcp/listener.js';
import { quantile } from './lib/stats.js';

const { values } = parseArgs({ options: { clients: { type: 'string', default: '8' }, duration: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' } } });
const clients_n = Number(values.clients);
const duration_ms = Number(values.duration) * 1000;
const rounds = Number(values.rounds);

/** Run `once` in `n` concurrent loops for `duration_ms`; @returns calls/s and each call's latency in ms. */
async function loops(n: number, once: (i: number) => Promise<void>): Promise<{ per_s: number; ms: number[] }> {
  const ms: number[] = [];
  const until = performance.now() + duration_ms;
  const started = performance.now();
  await Promise.all(Array.from({ length: n }, async (_, i) => {
    while (performance.now() < until) {
      const t0 = performance.now();
      await once(i);
      ms.push(performance.now() - t0);
    }
  }));
  return { per_s: ms.length / ((performance.now() - started) / 1000), ms };
}

const median = (xs: number[]) => quantile(xs, 0.5);
const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  const { app, sql, url, deps } = await testApp(t, { config: { mcp_rate_limit_per_min: 1_000_000 } });
  for (let i = 0; i < 20; i++) await addNode(sql, { country: i % 2 ? 'DE' : 'US', region: i % 2 ? 'eu-west' : 'us-east' });
  const mcp = await startMcpListener(deps, '127.0.0.1', 0);
  t.teardown(() => mcp.close());
  const user = await registerUser(app);
  const secret = (await call(app, 'POST', '/v1/mcp/tokens', { token: user.access_token, body: { type: 'workspace', name: 'bench' } })).body.data.secret as string;
  const clients = await Promise.all(Array.from({ length: clients_n }, async () => {
    const c = new Client({ name: 'vantage-bench-typescript', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
    t.teardown(() => c.close());
    return c;
  }));
  const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(0)}%`;
  const rows: string[] = [];
  /** `tool` with `args` over MCP against `GET peer_path` over /v1, warmed up, then `rounds` alternated rounds. */
  const pairOf = async (tool: string, args: Record<string, unknown>, peer_path: string) => {
    const mcpCall = async (i: number) => {
      const r = await clients[i]!.callTool({ name: tool, arguments: args });
      if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
    };
    const apiCall = async () => {
      const res = await fetch(`${url}${peer_path}`, { headers: { authorization: `Bearer ${user.access_token}` } });
      if (res.status !== 200) throw new Error(`GET ${peer_path}: ${res.status}`);
      await res.arrayBuffer();
    };
    // Warm-up of both paths (JIT, connections, caches).
    await loops(clients_n, mcpCall);
    await loops(clients_n, apiCall);
    const ours = { per_s: [] as number[], p50: [] as number[], p99: [] as number[] };
    const peer = { per_s: [] as number[], p50: [] as number[], p99: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      for (const [into, once] of [[ours, mcpCall], [peer, apiCall]] as const) {
        const res = await loops(clients_n, once);
        into.per_s.push(res.per_s);
        into.p50.push(quantile(res.ms, 0.5));
        into.p99.push(quantile(res.ms, 0.99));
      }
    }
    rows.push(
      `| ${tool} tool calls/s, ${clients_n} SDK clients (peer: GET ${peer_path.split('?')[0]}) | ${median(ours.per_s).toFixed(0)} | ${median(peer.per_s).toFixed(0)} | ${pct(median(ours.per_s), median(peer.per_s))} | |`,
      `| ${tool} p50 latency, ms | ${median(ours.p50).toFixed(2)} | ${median(peer.p50).toFixed(2)} | ${pct(median(ours.p50), median(peer.p50))} | |`,
      `| ${tool} p99 latency, ms | ${median(ours.p99).toFixed(2)} | ${median(peer.p99).toFixed(2)} | ${pct(median(ours.p99), median(peer.p99))} | |`,
    );
  };
  await pairOf('list_nodes', { page_size: 20 }, '/v1/nodes?page_size=20');
  await pairOf('info_ip', { q: '8.8.8.8' }, '/v1/info/ip?q=8.8.8.8');
  const [rec] = await sql`SELECT count(*)::int AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50 FROM mcp_tool_calls`;
  console.log([
    '| measure | ours | peer | difference | goal |', '|---|---|---|---|---|', ...rows,
    `| tool calls recorded; their p50 time in the tool, ms | ${rec!.n as number}; ${Number(rec!.p50).toFixed(0)} | — | medians of ${rounds} rounds of ${duration_ms / 1000} s | |`,
  ].join('\n'));
} finally {
  for (const fn of teardowns) await fn();
}
