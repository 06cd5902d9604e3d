/**
 * Benchmark (not a test) of the node hub at scale: `--instances` control-plane processes (the real
 * control-plane/src/main.ts, default 1) on one scratch database on the real Postgres at
 * TEST_DATABASE_URL (dropped afterwards), `--nodes` simulated nodes (test/bench/lib/hub-sim-nodes.ts,
 * another process: what the agent does on the wire, every task answered at once) spread over 9 countries and 40
 * ASNs and over the instances, and API clients over real HTTP (test/bench/lib/hub-load.ts).
 * Prints a sweep table and one table of figures, each beside its goal:
 *
 *  - probe groups/s before latency degrades: tcp probes on 3 nodes picked automatically, created
 *    at a fixed rate (`--rates`, `--step-s` seconds each) and polled every `--poll-ms` (10) ms by
 *    their client; latency = POST sent → `completed_at` (the last result stored); the knee is the highest rate with p99 < 200 ms, nothing
 *    shed and every group ended. The sweep stops after a step whose p50 passes 2 s;
 *  - POST of a 3-node probe at 5 groups/s (its p50 / p99, from the first step);
 *  - 1,000-node fan-out (`nodes: {count: 1000}`), POST → completed, `--fanouts` sequential probes;
 *  - one GET of a finished 1,000-node group, 30 times;
 *  - GET /v1/nodes?page_size=200 at random pages, 4 clients, 300 requests;
 *  - 503 UNAVAILABLE answers (load shedding) in the sweep, and the enrolment time and the first
 *    instance's RSS per connected node;
 *  - CPU of the instances and of the Postgres backends of the scratch database: idle with every
 *    node connected (`--idle-s`), and per group in the sweep, net of idle;
 *  - every node's link cut at once, each reconnecting on the agent's schedule (0.1-1 s after a
 *    stable link; `--herd-at-once`: every hello at once) → all online again (welcomed and
 *    `online` in the database); then kill -9 of the first instance and a restart on its port →
 *    ready, and all online, the nodes reconnecting on the agent's schedule; frames the nodes
 *    received before `welcome` (an agent drops them) are counted.
 * Targets are 198.18.0.10 (allow-listed test range); no probe traffic is sent.
 *
 *   node --import tsx test/bench/hub-bench.ts [--nodes 1000] [--instances 1] [--step-s 5]
 *     [--rates 5,10,20,40,80,120,160,200,250,320] [--fanouts 20] [--poll-ms 10] [--idle-s 20] [--profile] [--herd-at-once] [--no-restart]
 *     [--from-build] [--trace-loop]
 *
 * `--profile` runs the instances with `node --cpu-prof` (profiles in bench/out/profiles/).
 * `--from-build` runs them from the build as production does (installer/build-runtime.ts first;
 * `NODE_ENV=production control-plane/bin/control-plane.mjs`), not from the sources under tsx: what
 * a restart costs before the port opens is mostly module loading, which tsx makes dearer.
 * `--trace-loop` records every process's GC pauses and event-loop stalls (lib/hub-loop-trace.ts)
 * and the time each one's main thread waited for a core, and prints them beside the slowest GETs
 * and after the restart (lib/hub-slow-requests.ts).
 */
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { newId, newSecret } from '@vantage/shared-protocol';
import { testDatabase } from '../../control-plane/src/test-support/db.js';
import { secretHash } from '../../control-plane/src/nodes/secrets.js';
import { cpuMs, listenOverflows, rssBytes, startInstance, type Instance } from './lib/hub-instances.js';
import { Client, rateStep, runGroup, timedGets, type Step } from './lib/hub-load.js';
import { herd, pgCpuMeter, pgTransactions, simStats, untilAllOnline } from './lib/hub-phases.js';
import { readLoopTraces, startLoopTrace } from './lib/hub-loop-trace.js';
import { restartTrace, schedMeter, traced } from './lib/hub-slow-requests.js';
import { fmt, quantile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' }, instances: { type: 'string', default: '1' },
    'step-s': { type: 'string', default: '5' }, rates: { type: 'string', default: '5,10,20,40,80,120,160,200,250,320' },
    fanouts: { type: 'string', default: '20' }, profile: { type: 'boolean', default: false },
    'poll-ms': { type: 'string', default: '10' }, 'idle-s': { type: 'string', default: '20' },
    // Without the herd and kill -9 phases (a killed instance writes no --cpu-prof profile).
    'no-reconnects': { type: 'boolean', default: false },
    // The herd only, without the kill -9 (so a --profile run keeps its profile of the herd).
    'no-restart': { type: 'boolean', default: false },
    // The herd with every hello at once (no agent backoff): the worst case rather than what agents do.
    'herd-at-once': { type: 'boolean', default: false },
    // GC pauses and event-loop stalls of every process, beside the slowest GETs (hub-loop-trace.ts).
    'trace-loop': { type: 'boolean', default: false },
    // Run the instances from the build, as production does (NODE_ENV=production, dist/main.mjs), built first.
    'from-build': { type: 'boolean', default: false },
  },
});
const poll_ms = Number(values['poll-ms']);
const idle_s = Number(values['idle-s']);
const n_nodes = Number(values.nodes);
const n_instances = Number(values.instances);
const step_s = Number(values['step-s']);
const rates = values.rates!.split(',').map(Number);
const fanouts = Number(values.fanouts);
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(REPO, 'bench', 'out');
const COUNTRIES = ['US', 'DE', 'JP', 'GB', 'SG', 'FR', 'BR', 'IN', 'CN'];
const POLL = { poll_ms: poll_ms, deadline_ms: 30_000 };
const log = (s: string) => process.stderr.write(`${s}\n`);
const TRACE_DIR = join(OUT, 'loop-trace', String(process.pid));
const TRACE_MODULE = fileURLToPath(new URL('./lib/hub-loop-trace.ts', import.meta.url));
const client_trace = values['trace-loop'] ? startLoopTrace() : null;
const trace_env = (label: string): Record<string, string> => (values['trace-loop'] ? { BENCH_LOOP_TRACE_DIR: TRACE_DIR, BENCH_LOOP_TRACE_LABEL: label } : {});

const teardowns: Array<() => unknown> = [];
let sim: ReturnType<typeof fork> | undefined;
let client: Client | undefined;
try {
  const { sql, url: database_url } = await testDatabase({ teardown: (fn) => void teardowns.unshift(fn) });
  const database = new URL(database_url).pathname.slice(1);
  // Tokens in bulk, one declared country each (round-robin), for one owner.
  const user_id = newId('user');
  const tokens = Array.from({ length: n_nodes }, () => newSecret('enrollment_token'));
  for (let i = 0; i < n_nodes; i += 2000) {
    const rows = tokens.slice(i, i + 2000).map((tok, j) => ({
      id: newId('enrollment_token_record'), user_id, token_hash: secretHash(tok), preview: 'ent_…', country_code: COUNTRIES[(i + j) % COUNTRIES.length]!,
    }));
    await sql`INSERT INTO enrollment_tokens (id, user_id, token_hash, preview, country_code, expires_at)
      SELECT id, user_id, token_hash, preview, country_code, now() + interval '1 hour' FROM jsonb_to_recordset(${sql.json(rows as never)})
        AS t(id text, user_id text, token_hash text, preview text, country_code text)`;
  }

  const env = {
    VANTAGE_LOG_LEVEL: 'warn', VANTAGE_PROBE_ALLOW_CIDRS: '198.18.0.0/15', VANTAGE_TRUST_PROXY: 'true',
    VANTAGE_RATE_LIMIT_ANONYMOUS: '1000000000', VANTAGE_RATE_LIMIT_KEYED: '1000000000',
    // 10,000 nodes enrol from one loopback address within seconds.
    VANTAGE_RATE_LIMIT_UPGRADES: '1000000000',
    // Anonymous probes; the tokens above are shared (the column's default, 0045).
    VANTAGE_PUBLIC_PROBES: 'anonymous',
  };
  const node_flags = [...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(OUT, 'profiles')}`] : []), ...(values['trace-loop'] ? ['--import', TRACE_MODULE] : [])];
  if (values['from-build']) {
    log('building control-plane/dist/main.mjs…');
    await new Promise<void>((resolve, reject) => fork(join(REPO, 'installer/build-runtime.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'ignore' })
      .once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build-runtime exited ${code}`)))));
  }
  const instances: Instance[] = [];
  const start = (i: number, port?: number) => startInstance({ repo: REPO, database_url, instance_id: `bench-${i + 1}`, env: { ...env, ...trace_env(`bench-${i + 1}`) }, log_dir: join(OUT, 'hub-logs'), node_flags, port, built: values['from-build'] });
  for (let i = 0; i < n_instances; i++) {
    instances.push(await start(i));
    teardowns.unshift(() => instances[i]!.stop());
  }
  const rss0 = await rssBytes(instances[0]!.pid);

  log(`enrolling ${n_nodes} simulated nodes on ${n_instances} instance(s)…`);
  sim = fork(fileURLToPath(new URL('./lib/hub-sim-nodes.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx', ...(values['trace-loop'] ? ['--import', TRACE_MODULE] : [])], env: { ...process.env, ...trace_env('sim') }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const t_enroll = performance.now();
  sim.send({ bases: instances.map((x) => x.url), tokens });
  await new Promise<string[]>((resolve, reject) => {
    sim!.once('message', (m: { ready: string[] }) => resolve(m.ready));
    sim!.once('exit', (code) => reject(new Error(`simulated nodes exited ${code}`)));
  });
  const enroll_s = (performance.now() - t_enroll) / 1000;
  // 40 networks across the countries, so the automatic pick has ASNs to spread over.
  await sql`UPDATE nodes SET asn = 64500 + (abs(hashtext(id)) % 40), provider = 'as' || (64500 + (abs(hashtext(id)) % 40))`;
  await sql`VACUUM ANALYZE nodes`;
  await new Promise((r) => setTimeout(r, 1000));
  const rss1 = await rssBytes(instances[0]!.pid);
  client = new Client(instances.map((x) => x.url));

  // The instances' and their Postgres backends' CPU with every node connected and no probe:
  // heartbeats, pings, outbox.stats and periodic jobs.
  const instancesCpu = async () => (await Promise.all(instances.map((x) => cpuMs(x.pid)))).reduce((a, b) => a + b, 0);
  log(`idle for ${idle_s} s…`);
  const idle0 = await instancesCpu();
  const pg_idle = await pgCpuMeter(sql, database);
  await new Promise((r) => setTimeout(r, idle_s * 1000));
  const idle_ms_per_s = ((await instancesCpu()) - idle0) / idle_s;
  const pg_idle_ms_per_s = (await pg_idle()) / idle_s;
  log('warm-up…');
  for (let i = 0; i < 20; i++) await runGroup(client, {}, POLL);

  const steps: Step[] = [];
  const pg_ms_per_group = new Map<Step, number>();
  const xacts_per_group = new Map<Step, number>();
  for (const rate of rates) {
    log(`sweep: ${rate} groups/s for ${step_s} s…`);
    const pg = await pgCpuMeter(sql, database);
    const xacts0 = await pgTransactions(sql, database);
    const step = await rateStep(client, rate, step_s, {}, { ...POLL, cpu_ms: instancesCpu });
    pg_ms_per_group.set(step, ((await pg()) - (pg_idle_ms_per_s * step.elapsed_ms) / 1000) / step.groups);
    // Reported by the backends within a second or so.
    await new Promise((r) => setTimeout(r, 1500));
    xacts_per_group.set(step, ((await pgTransactions(sql, database)) - xacts0) / step.groups);
    steps.push(step);
    if (!(step.p50_ms <= 2000) && !(step.shed > step.groups / 2)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }

  log(`fan-out to ${Math.min(1000, n_nodes)} nodes ×${fanouts}…`);
  const fan: number[] = [];
  let fan_failed = 0;
  let last_group: string | null = null;
  for (let i = 0; i < fanouts; i++) {
    let post = await client.request('POST', '/v1/probe/tcp', { target: '198.18.0.10:443', nodes: { count: 1000 } });
    // A shed request is retried after its Retry-After, as a client should (the sweep may have
    // just overloaded the instance).
    for (let tries = 0; post.status === 503 && tries < 20; tries++) {
      await new Promise((r) => setTimeout(r, 1000 * Number(post.retry_after ?? 1)));
      post = await client.request('POST', '/v1/probe/tcp', { target: '198.18.0.10:443', nodes: { count: 1000 } });
    }
    if (post.status !== 202) {
      fan_failed++;
      const states = await sql<{ status: string; n: number }[]>`SELECT status, count(*)::int AS n FROM nodes GROUP BY status`;
      log(`fan-out POST refused: ${post.status} ${JSON.stringify(post.body)?.slice(0, 300)}; nodes: ${states.map((x) => `${x.n} ${x.status}`).join(', ')}`);
      continue;
    }
    const sent = Date.now() - post.ms;
    const task_id = post.body.data.task_id as string;
    for (;;) {
      await new Promise((r) => setTimeout(r, POLL.poll_ms));
      const got = await client.request('GET', `/v1/probe/tasks/${task_id}`);
      const d = got.status === 200 ? got.body.data : null;
      if (d?.completed_at) { fan.push(Date.parse(d.completed_at) - sent); last_group = task_id; break; }
      if (Date.now() - sent > POLL.deadline_ms) {
        fan_failed++;
        log(`fan-out ${task_id} not ended after ${POLL.deadline_ms} ms: ${d ? `${d.status}, ${d.node_results.length} node results` : got.status}`);
        break;
      }
    }
  }
  const sched_pids = { ...Object.fromEntries(instances.map((x, i) => [`bench-${i + 1}`, x.pid])), sim: sim.pid!, client: process.pid };
  const group_sched = await schedMeter(sched_pids);
  const group_get = last_group ? await timedGets(client, 30, 1, () => `/v1/probe/tasks/${last_group}`) : null;
  const group_waits = await group_sched();
  const pages = Math.max(1, Math.ceil(n_nodes / 200));
  const list_sched = await schedMeter(sched_pids);
  const listing = await timedGets(client, 300, 4, () => `/v1/nodes?page_size=200&page=${1 + Math.floor(Math.random() * pages)}`);
  const list_waits = await list_sched();
  if (values['trace-loop']) {
    // The preloaded processes write what they saw every 200 ms.
    await new Promise((r) => setTimeout(r, 500));
    traced(await readLoopTraces(TRACE_DIR), client_trace!.events(), [
      { name: 'group GET', waits: group_waits, requests: group_get?.requests ?? [] },
      { name: 'node list GET', waits: list_waits, requests: listing.requests },
    ]).forEach(log);
  }

  const reconnects = values['no-reconnects'] ? null : await reconnectPhases();
  async function reconnectPhases() {
    log('every node reconnecting at once…');
    const overflows0 = await listenOverflows();
    const herd_ms = await herd(sql, sim!, n_nodes, 120_000, values['herd-at-once']);
    const dropped_herd = (await simStats(sim!)).dropped_before_welcome;
    const overflows_herd = (await listenOverflows()) - overflows0;
    if (values['no-restart']) return { herd_ms, dropped_herd, overflows_herd, ready_ms: null, restart_ms: null, overflows_restart: null, after: await simStats(sim!) };
    log('kill -9 of the first instance and restart on its port…');
    const port = Number(new URL(instances[0]!.url).port);
    const gone = new Promise((r) => instances[0]!.child.once('exit', r));
    const t_kill = performance.now();
    instances[0]!.child.kill('SIGKILL');
    await gone;
    instances[0] = await start(0, port);
    const ready_ms = performance.now() - t_kill;
    const restart_ms = await untilAllOnline(sql, sim!, n_nodes, t_kill, 120_000);
    const overflows_restart = (await listenOverflows()) - overflows0 - overflows_herd;
    if (values['trace-loop']) (await restartTrace(TRACE_DIR, instances[0]!.pid, Date.now() - (performance.now() - t_kill), ready_ms, restart_ms)).forEach(log);
    return { herd_ms, dropped_herd, overflows_herd, ready_ms, restart_ms, overflows_restart, after: await simStats(sim!) };
  }

  // ── output ──
  const where = `${n_nodes.toLocaleString('en')} nodes, ${n_instances} instance${n_instances > 1 ? 's' : ''}`;
  const net = (s: Step) => s.cpu_ms_per_group - (idle_ms_per_s * s.elapsed_ms) / 1000 / s.groups;
  console.log(`\nHub benchmark: ${where} (node ${process.version}; instances run ${values['from-build'] ? 'from the build, NODE_ENV=production' : 'from the TypeScript sources under tsx'}); sweep: ${step_s} s per rate, 3-node tcp probes, automatic selection, polled every ${poll_ms} ms\n`);
  console.log('| groups/s | created | ended | shed (503) | other errors | p50 / p99 POST → completed (ms) | p50 POST → seen by poll (ms) | POST p50 / p99 (ms) | control-plane CPU per group, net of idle / this client (ms) | completed_at 1970/null |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of steps) {
    console.log(`| ${s.rate} | ${s.groups} | ${s.completed} | ${s.shed} | ${s.errors} | ${fmt(s.p50_ms, 0)} / ${fmt(s.p99_ms, 0)} | ${fmt(s.seen_p50_ms, 0)} | ${fmt(s.post_p50_ms, 1)} / ${fmt(s.post_p99_ms, 1)} | ${fmt(net(s), 2)} / ${fmt(s.client_cpu_ms_per_group, 2)} | ${s.bad_completed_at} |`);
  }
  const good = steps.filter((s) => s.p99_ms < 200 && s.shed === 0 && s.errors === 0);
  const knee = good.length ? good[good.length - 1]! : null;
  const after = knee ? steps[steps.indexOf(knee) + 1] : steps[0];
  const kneeText = `${knee ? `${knee.rate}/s (p50 ${fmt(knee.p50_ms, 0)} ms, p99 ${fmt(knee.p99_ms, 0)} ms)` : 'none'}`
    + (after ? `; ${after.rate}/s: p50 ${fmt(after.p50_ms, 0)} ms, p99 ${fmt(after.p99_ms, 0)} ms, ${after.shed} shed` : '');
  const first = steps[0];
  // The busiest step nothing was shed in: the idle share weighs least there.
  const cpu_step = [...steps].reverse().find((s) => s.shed === 0 && s.completed === s.groups);
  const shed_total = steps.reduce((a, s) => a + s.shed, 0);
  const first_shed = steps.find((s) => s.shed > 0);
  const verdict = (ok: boolean) => (ok ? 'meets goal' : 'misses goal');
  const rows: Array<[string, string, string, string]> = [
    [`${where}: simulated nodes enrolled`, `${n_nodes} in ${enroll_s.toFixed(1)} s`, '', ''],
    [`${where}: CPU with every node connected, no probes (heartbeats, pings, outbox.stats, periodic jobs; ${idle_s} s), control plane + its Postgres backends`, `${fmt(idle_ms_per_s / 10, 1)} % + ${fmt(pg_idle_ms_per_s / 10, 1)} % of a core`, verdict(idle_ms_per_s / 10 < 15), 'control plane < 15 %'],
    [`${where}: control-plane CPU per 3-node group, net of idle (at ${cpu_step?.rate ?? '—'} groups/s)`, cpu_step ? `${fmt(net(cpu_step), 2)} ms` : '—', verdict(!!cpu_step && net(cpu_step) <= 2), '≤ 2 ms'],
    [`${where}: Postgres CPU per 3-node group, net of idle (its backends, at ${cpu_step?.rate ?? '—'} groups/s)`, cpu_step ? `${fmt(pg_ms_per_group.get(cpu_step)!, 2)} ms` : '—', verdict(!!cpu_step && pg_ms_per_group.get(cpu_step)! <= 3), '≤ 3 ms'],
    ...(reconnects ? reconnectRows(reconnects) : []),
    [`${where}: database transactions per 3-node group, polls included (pg_stat_database; at ${cpu_step?.rate ?? '—'} groups/s)`, cpu_step ? fmt(xacts_per_group.get(cpu_step)!, 1) : '—', '', ''],
    [`${where}: RSS per connected node (first instance)`, `${fmt((rss1 - rss0) / Math.max(1, Math.ceil(n_nodes / n_instances)) / 1024, 1)} KiB`, '', ''],
    [`${where}: probe groups/s before latency degrades (3 nodes, polled every ${poll_ms} ms)`, kneeText, verdict((knee?.rate ?? 0) >= 200), '≥ 200/s at p99 < 200 ms'],
    [`${where}: POST of a 3-node probe at ${first?.rate ?? '—'} groups/s, p50 / p99`, first ? `${fmt(first.post_p50_ms, 1)} / ${fmt(first.post_p99_ms, 1)} ms` : '—', verdict((first?.post_p50_ms ?? Infinity) < 10), 'p50 < 10 ms'],
    [`${where}: ${Math.min(1000, n_nodes)}-node fan-out, POST → completed, p50 / p99 (${fan.length} probes, ${fan_failed} failed)`, `${fmt(quantile(fan, 0.5), 0)} / ${fmt(quantile(fan, 0.99), 0)} ms`, verdict(quantile(fan, 0.99) < 500), 'p99 < 500 ms'],
    [`${where}: one GET of a finished ${Math.min(1000, n_nodes)}-node group (${group_get ? Math.round(group_get.bytes / 1024) : '—'} KB), p50 / p99`, group_get ? `${fmt(quantile(group_get.ms, 0.5), 1)} / ${fmt(quantile(group_get.ms, 0.99), 1)} ms` : '—', verdict(!!group_get && quantile(group_get.ms, 0.99) < 50), '< 50 ms'],
    [`${where}: GET /v1/nodes?page_size=200, p50 / p99 (4 clients, ${listing.ms.length} requests)`, `${fmt(quantile(listing.ms, 0.5), 1)} / ${fmt(quantile(listing.ms, 0.99), 1)} ms`, verdict(quantile(listing.ms, 0.99) < 50), 'p99 < 50 ms'],
    [`${where}: 503 UNAVAILABLE (load shed) answers in the sweep`, `${shed_total}${first_shed ? ` (from ${first_shed.rate}/s, Retry-After sent)` : ''}`, '', 'shed before latency collapses'],
    [`${where}: polls that read an ended group without a valid completed_at`, String(steps.reduce((a, s) => a + s.bad_completed_at, 0)), '', '0'],
  ];
  function reconnectRows(r: NonNullable<typeof reconnects>): Array<[string, string, string, string]> {
    const s = (ms: number | null) => (ms === null ? 'not within 120 s' : `${fmt(ms / 1000, 1)} s`);
    return [
      [`${where}: every node's link cut at once, reconnecting ${values['herd-at-once'] ? 'all at once' : 'on the agent\'s schedule'} to a running instance → all online`, s(r.herd_ms), verdict(r.herd_ms !== null && r.herd_ms < 5000), '< 5 s'],
      ...(r.ready_ms === null ? [] : [[`${where}: kill -9 of the first instance, restart on its port → all online (ready after)`, `${s(r.restart_ms)} (${s(r.ready_ms)})`, verdict(r.restart_ms !== null && r.restart_ms < 10_000), '< 10 s'] as [string, string, string, string]]),
      [`${where}: frames the nodes dropped because they came before welcome (herd / herd + restart)`,
        `${JSON.stringify(r.dropped_herd)} / ${JSON.stringify(r.after.dropped_before_welcome)}; ${r.after.failed_attempts} failed attempts ${JSON.stringify(r.after.failures)}`, '', '0'],
      // Machine-wide (/proc/net/netstat): other work on the machine may add to it.
      [`${where}: handshakes dropped by a full listen queue (ListenOverflows, herd / restart)`, `${r.overflows_herd} / ${r.overflows_restart ?? '—'}`, '', '0'],
    ];
  }
  console.log('\n| figure | ours | peer | difference | goal |\n|---|---|---|---|---|');
  for (const [figure, ours, difference, goal] of rows) console.log(`| ${figure} | ${ours} |  | ${difference} | ${goal} |`);
} finally {
  client?.close();
  if (sim?.connected) sim.send('stop');
  await new Promise((r) => setTimeout(r, 500));
  for (const fn of teardowns) await fn();
}
