/*
 * HTTP probe timing inside a running agent, against curl beside it. A script, not a test: it
 * prints one Markdown table.
 *
 *   npx tsx test/bench/agent-http-timing-bench.ts [--n 60] [--warmup 3] [--agents 3] [--cpu-prof DIR] [--no-pin] [--read-paths N]
 *
 * Needs root, iproute2, curl and the Postgres at TEST_DATABASE_URL. On the routed network of
 * lib/agent-http-network.ts (real control plane; `agents` real agents, each the installer's
 * bundle started as install.sh starts it, in its own namespace, one router between them and the
 * target) it runs `n` pairs per page, the agents taking turns: one HTTP probe through the public
 * API (POST /v1/probe/http on that agent's node, read once the agent logged its timing: no polling
 * while it runs), and curl run in the same
 * agent's namespace on the same URL, the order alternating from pair to pair, after `warmup`
 * unrecorded pairs. So the agent measures with everything else of a running agent on its event
 * loop: the hub connection, the scheduler, the outbox, the logger.
 *
 * Ours are the agent's float timings before rounding (the debug log line `http timing before
 * rounding (ms)`, which is why the agents run at log_level debug); the API's integer must be that
 * float rounded (else the pair fails), and its median is printed beside ours. Figures (medians over the pairs, and the median of the paired differences):
 * - 1 MB body (`/bytes/1000000`): response_ms vs curl time_total; download_ms vs
 *   time_total − time_starttransfer; ttfb_ms vs time_starttransfer − time_connect;
 * - a page answered after 50 ms (`/slow/50`): response_ms vs time_total.
 * With 2 CPUs or more the agents and curl run on CPU 0 and the control plane on CPU 1
 * (`--no-pin`: anywhere): on a real network the control plane is elsewhere, and its work for
 * each task (the task.ack, database writes) otherwise takes the agent's CPU while it measures.
 * `--cpu-prof DIR` starts the agents with node --cpu-prof (profiles written to DIR at exit).
 * `--read-paths N` then runs lib/http-read-paths.ts in the first agent's namespace (a fresh
 * process on the agents' CPU): the probe engine, a bare socket read through the stream and one
 * read through `onread`, each against curl on the 1 MB body, N rounds: where the time goes.
 * Prints the load average at start and end.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { api, startAgentHttpNetwork, type AgentHttpNetwork, type BenchAgent } from './lib/agent-http-network.js';
import { median } from './lib/stats.js';

const { values } = parseArgs({ options: {
  n: { type: 'string', default: '60' }, warmup: { type: 'string', default: '3' }, agents: { type: 'string', default: '3' },
  'cpu-prof': { type: 'string' }, 'no-pin': { type: 'boolean', default: false }, 'read-paths': { type: 'string' },
} });
const N = Number(values.n);
const WARMUP = Number(values.warmup);
const AGENTS = Number(values.agents);
/** Agents and curl on CPU 0, the control plane on CPU 1 (2 CPUs or more, unless --no-pin). */
const PIN = !values['no-pin'] && availableParallelism() >= 2 ? { agents: '0', others: '1' } : null;
const POLL_MS = 20;
const ENDED = new Set(['completed', 'failed']);

/** One probe's timings, ms: the agent's floats and the API's integers. */
interface OursSample { response_ms: number; tcp_ms: number; ttfb_ms: number; download_ms: number; api_response_ms: number }
/** curl's figures for the same URL, ms. */
interface CurlSample { total_ms: number; connect_ms: number; starttransfer_ms: number }

/** Resolve the next `http timing before rounding (ms)` debug line of `agent` (float timings). */
function nextTimingLine(agent: BenchAgent & { waiters: Array<(v: any) => void> }): Promise<any> {
  return new Promise((resolve) => agent.waiters.push(resolve));
}

/** One HTTP probe of `url` on `agent` through the API; resolves its float and integer timings. @throws Error when it did not succeed */
async function ours(net: AgentHttpNetwork, agent: BenchAgent & { waiters: Array<(v: any) => void> }, url: string): Promise<OursSample> {
  const logged = nextTimingLine(agent);
  const { task_id } = await api<{ task_id: string }>(net.api_url, 'POST', '/v1/probe/http', { target: url, node_ids: [agent.node_id] });
  // No polling while the probe runs: on a small machine the control plane's and the database's
  // work for each poll would compete with the agent for the CPU, and curl has no such neighbour.
  // The agent logs the timing line just before it hands the result to its outbox.
  const line = await Promise.race([logged, new Promise((_, reject) => setTimeout(() => reject(new Error(`no timing log line for ${task_id} within 30 s`)), 30_000))]) as any;
  let task: any;
  const until = Date.now() + 30_000;
  for (;;) {
    task = await api(net.api_url, 'GET', `/v1/probe/tasks/${task_id}`);
    if (ENDED.has(task.status)) break;
    if (Date.now() > until) throw new Error(`probe ${task_id} not ended after 30 s`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const result = task.node_results?.[0];
  if (!result?.success) throw new Error(`probe ${task_id} failed: ${JSON.stringify(result)}`);
  if (result.response_ms !== Math.round(line.response_ms)) throw new Error(`probe ${task_id}: API response_ms ${result.response_ms} is not the logged ${line.response_ms} rounded`);
  return { response_ms: line.response_ms, tcp_ms: line.timing.tcp_ms, ttfb_ms: line.timing.ttfb_ms, download_ms: line.timing.download_ms, api_response_ms: result.response_ms };
}

/** curl on `url` from `agent`'s namespace; resolves its timings in ms. */
async function curl(net: AgentHttpNetwork, agent: BenchAgent, url: string): Promise<CurlSample> {
  const out = await net.exec(agent.name, [...(PIN ? ['taskset', '-c', PIN.agents] : []), 'curl', '-s', '-o', '/dev/null', '-w', '%{time_total} %{time_connect} %{time_starttransfer}', url]);
  const [total, connect, start] = out.trim().split(' ').map((s) => Number(s) * 1000);
  return { total_ms: total!, connect_ms: connect!, starttransfer_ms: start! };
}

/** `n` interleaved pairs on `url` (agents in turn); resolves the recorded samples. */
async function pairsOn(net: AgentHttpNetwork, agents: Array<BenchAgent & { waiters: Array<(v: any) => void> }>, url: string): Promise<Array<{ ours: OursSample; curl: CurlSample }>> {
  const got: Array<{ ours: OursSample; curl: CurlSample }> = [];
  for (let i = 0; i < WARMUP + N; i++) {
    const agent = agents[i % agents.length]!;
    let o: OursSample;
    let c: CurlSample;
    if (i % 2 === 0) {
      o = await ours(net, agent, url);
      c = await curl(net, agent, url);
    } else {
      c = await curl(net, agent, url);
      o = await ours(net, agent, url);
    }
    if (i >= WARMUP) got.push({ ours: o, curl: c });
  }
  return got;
}

const f2 = (x: number) => x.toFixed(2);

/** One table row: medians of ours and curl, median of the paired differences, the goal. */
function row(label: string, xs: number[], ys: number[], goal: number, extra = ''): string {
  const d = median(xs.map((x, i) => x - ys[i]!));
  return `| ${label}, N=${xs.length} | ${f2(median(xs))}${extra} | curl ${f2(median(ys))} | ${d >= 0 ? '+' : ''}${f2(d)} | within ${goal} (${Math.abs(d) <= goal ? 'met' : 'NOT met'}) |`;
}

async function main(): Promise<void> {
  const load0 = loadavg();
  const net = await startAgentHttpNetwork({
    agents: AGENTS, agent_log_level: 'debug', pin: PIN,
    node_args: values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-interval', '50', '--cpu-prof-dir', values['cpu-prof']] : [],
  });
  try {
    const agents = net.agents.map((a) => {
      const waiters: Array<(v: any) => void> = [];
      a.onLine((line) => {
        if (!line.includes('http timing before rounding')) return;
        try { waiters.shift()?.(JSON.parse(line)); } catch { /* not JSON */ }
      });
      return { ...a, waiters };
    });
    process.stderr.write(`agent http timing bench: 1 MB, ${N} pairs\n`);
    const mb = await pairsOn(net, agents, `${net.target_origin}/bytes/1000000`);
    process.stderr.write(`agent http timing bench: 50 ms page, ${N} pairs\n`);
    const slow = await pairsOn(net, agents, `${net.target_origin}/slow/50`);
    const load1 = loadavg();
    // Every pair, for a closer look than medians (bench/out is git-ignored).
    writeFileSync(join(net.log_dir, 'samples.json'), `${JSON.stringify({ mb, slow }, null, 1)}\n`);
    const apiInt = (s: typeof mb) => ` (API integer ${median(s.map((p) => p.ours.api_response_ms))})`;
    console.log(`\nHTTP probe timing inside running agents vs curl in the same namespace (${AGENTS} bundled agents taking turns, routed agent → router → target; ${PIN ? `agents and curl on CPU ${PIN.agents}, control plane on CPU ${PIN.others}` : 'unpinned'}; N pairs each, interleaved, ${WARMUP} warm-up pairs; load average ${load0.map(f2).join(' ')} at start, ${load1.map(f2).join(' ')} at end)\n`);
    console.log('| measure | ours (median, ms) | reference (median, ms) | median of paired differences (ms) | goal |');
    console.log('|---|---|---|---|---|');
    console.log(row('agent, 1 MB body: response_ms vs curl time_total', mb.map((p) => p.ours.response_ms), mb.map((p) => p.curl.total_ms), 1, apiInt(mb)));
    console.log(row('agent, 1 MB body: download_ms vs curl time_total − time_starttransfer', mb.map((p) => p.ours.download_ms), mb.map((p) => p.curl.total_ms - p.curl.starttransfer_ms), 0.5));
    console.log(row('agent, 1 MB body: ttfb_ms vs curl time_starttransfer − time_connect', mb.map((p) => p.ours.ttfb_ms), mb.map((p) => p.curl.starttransfer_ms - p.curl.connect_ms), 0.5));
    console.log(row('agent, 50 ms page: response_ms vs curl time_total', slow.map((p) => p.ours.response_ms), slow.map((p) => p.curl.total_ms), 1, apiInt(slow)));
    if (values['read-paths']) {
      const script = fileURLToPath(new URL('./lib/http-read-paths.ts', import.meta.url));
      const argv = [process.execPath, '--import', 'tsx', script, `${net.target_origin}/bytes/1000000`, values['read-paths']];
      console.log(await net.exec(agents[0]!.name, PIN ? ['taskset', '-c', PIN.agents, ...argv] : argv));
    }
  } finally {
    await net.close();
  }
}

await main();
