/*
 * End-to-end benchmark. A script, not a test: it prints a Markdown table.
 *
 *   npx tsx test/bench/e2e-bench.ts [--n 30] [--sse 10] [--delay 50] [--warmup 3]
 *
 * Needs root (network namespaces), iproute2, curl and the Postgres at TEST_DATABASE_URL. On the
 * network of lib/e2e-network.ts (real control plane on a fresh database, three real agents in
 * their own namespaces, an HTTP target that answers after `delay` ms) it runs `n` sequential
 * 3-node HTTP probes through the public API and measures, per probe:
 *  - raw: performance.now() from sending POST /v1/probe/http to the first GET
 *    /v1/probe/tasks/{id} (polled every 20 ms) that shows the task ended;
 *  - stored: POST → `completed_at` (when the control plane stored the last node result; the
 *    same machine's clock), i.e. without the polling delay;
 *  - the target's own time: max `response_ms` of the three node results; net = raw − that.
 * Then `sse` more probes watched through GET /v1/probe/tasks/{id}/stream until `event: done`
 * (the stream is woken by results stored on its own instance, and polls the database every 200 ms
 * for results stored by others: control-plane/src/probes/stream.ts). Peer: curl's time_total for the same URL from an agent's namespace.
 * Bounded: the whole run gives up after 110 s.
 */
import { parseArgs } from 'node:util';
import { startE2eNetwork, type E2eNetwork } from './lib/e2e-network.js';
import { fmt, median, quantile } from './lib/stats.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '30' }, sse: { type: 'string', default: '10' }, delay: { type: 'string', default: '50' }, warmup: { type: 'string', default: '3' } } });
const N = Number(values.n);
const N_SSE = Number(values.sse);
const DELAY_MS = Number(values.delay);
const WARMUP = Number(values.warmup);
const POLL_MS = 20;
const ENDED = new Set(['completed', 'failed']);

/** One probe as measured: ms from POST sent, and the target's own time seen by the nodes. */
interface Sample { post_ms: number; raw_ms: number; stored_ms: number; target_ms: number; ok: boolean }

async function getJson(url: string, init?: RequestInit): Promise<any> {
  const res = await fetch(url, init);
  const body = (await res.json()) as { data?: unknown; error?: { code: string } };
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${body.error?.code ?? ''}`);
  return body.data;
}

/** POST a 3-node HTTP probe; resolves its task id (the group id). */
async function postProbe(net: E2eNetwork): Promise<string> {
  const body = JSON.stringify({ target: net.target_url, node_ids: net.node_ids });
  const data = await getJson(`${net.api_url}/v1/probe/http`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return data.task_id as string;
}

/** Poll the task every POLL_MS until it has ended; resolves the polling answer. */
async function pollEnded(net: E2eNetwork, task_id: string): Promise<any> {
  for (;;) {
    const task = await getJson(`${net.api_url}/v1/probe/tasks/${task_id}`);
    if (ENDED.has(task.status)) return task;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Read the task's SSE stream until `event: done`; resolves that event's data (the polling answer). */
async function sseDone(net: E2eNetwork, task_id: string): Promise<any> {
  const res = await fetch(`${net.api_url}/v1/probe/tasks/${task_id}/stream`, { headers: { accept: 'text/event-stream' } });
  if (!res.ok || !res.body) throw new Error(`stream: ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended without event: done');
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (/^event: done$/m.test(frame)) return JSON.parse(frame.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n'));
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** One probe from POST to ended, watched by `watch` (polling or SSE). */
async function measure(net: E2eNetwork, watch: (net: E2eNetwork, task_id: string) => Promise<any>): Promise<Sample> {
  const wall0 = Date.now();
  const t0 = performance.now();
  const task_id = await postProbe(net);
  const post_ms = performance.now() - t0;
  const task = await watch(net, task_id);
  const raw_ms = performance.now() - t0;
  const results = task.node_results as Array<{ success: boolean; status_code: number | null; response_ms: number | null }>;
  const ok = task.status === 'completed' && results.length === net.node_ids.length && results.every((r) => r.success && r.status_code === 200);
  const target_ms = Math.max(...results.map((r) => r.response_ms ?? Number.NaN));
  return { post_ms, raw_ms, stored_ms: Date.parse(task.completed_at) - wall0, target_ms, ok };
}

/** curl's time_total (ms) for the target from the first agent's namespace, `n` times. */
async function curlTimes(net: E2eNetwork, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = await net.exec(net.agents[0]!, ['curl', '-s', '-o', '/dev/null', '-w', '%{time_total}', net.target_url]);
    out.push(Number(s.trim()) * 1000);
  }
  return out;
}

const pair = (xs: number[]) => `${fmt(median(xs))} / ${fmt(quantile(xs, 0.95))} ms`;

async function main(): Promise<void> {
  const net = await startE2eNetwork({ agents: 3, target_delay_ms: DELAY_MS });
  const stop = () => { void net.close().finally(() => process.exit(1)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const deadline = setTimeout(() => { process.stderr.write('e2e-bench: gave up after 110 s\n'); stop(); }, 110_000);
  try {
    for (let i = 0; i < WARMUP; i++) await measure(net, pollEnded);
    const polled: Sample[] = [];
    for (let i = 0; i < N; i++) polled.push(await measure(net, pollEnded));
    const streamed: Sample[] = [];
    for (let i = 0; i < N_SSE; i++) streamed.push(await measure(net, sseDone));
    const curl = await curlTimes(net, 10);
    const good = polled.filter((s) => s.ok);
    const goodSse = streamed.filter((s) => s.ok);
    const failed = polled.length - good.length + streamed.length - goodSse.length;
    const raw = good.map((s) => s.raw_ms);
    const net_ms = good.map((s) => s.raw_ms - s.target_ms);
    const stored = good.map((s) => s.stored_ms);
    const target = good.map((s) => s.target_ms);
    const rows = [
      [`3-node HTTP probe, POST → ended seen by polling every ${POLL_MS} ms: raw p50 / p95 (N=${good.length})`, pair(raw), '', '', ''],
      ['same, net of the target\'s own time (raw − max response_ms of the 3 nodes): p50 / p95', pair(net_ms), '', '', ''],
      ['POST → last node result stored (completed_at, no polling delay): raw p50 / p95', pair(stored), '', '', ''],
      ['same, net of the target\'s own time: p50 / p95', pair(good.map((s) => s.stored_ms - s.target_ms)), '', '', ''],
      [`target's own time seen by the nodes, max response_ms of 3, vs curl time_total from an agent host (server waits ${DELAY_MS} ms): p50 / p95`, pair(target), pair(curl), `${fmt(median(target) - median(curl))} ms (p50)`, ''],
      [`POST → \`event: done\` on GET …/stream (SSE): raw / net p50 (N=${goodSse.length})`, `${fmt(median(goodSse.map((s) => s.raw_ms)))} / ${fmt(median(goodSse.map((s) => s.raw_ms - s.target_ms)))} ms`, '', '', ''],
      ['POST /v1/probe/http answered 202: p50 / p95', pair(good.map((s) => s.post_ms)), '', '', ''],
      ['probes not completed with 3 × status 200 (left out of the figures)', String(failed), '', '', '0'],
    ];
    console.log(`\nEnd-to-end: ${N} sequential 3-node HTTP probes on the namespace test network (node ${process.version})\n`);
    console.log('| measure | ours | curl | difference | goal |');
    console.log('|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  } finally {
    clearTimeout(deadline);
    await net.close();
  }
}

await main();
