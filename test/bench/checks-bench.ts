/**
 * Benchmark (not a test): the monitor check history on the real Postgres at TEST_DATABASE_URL (a
 * scratch database, dropped afterwards), one control-plane process (this one: the whole app
 * in-process, requests through app.request).
 *
 *   npx tsx test/bench/checks-bench.ts [--monitors 10000] [--nodes 100] [--rounds 7] [--batch 100]
 *       [--concurrency nodes|N] [--steady-s 60] [--warm-s 30] [--history-days 90] [--others 200] [--pack-series 100]
 *       [--pack-spread-ms 30] [--requests 200] [--warmup-calls 2000] [--warmup-s 20]
 *       [--phases ingest,ceiling,decide,bytes,steady,store,queries] [--cpu-profile FILE] [--explain]
 *
 * Prints JSON figures:
 * - ingest_results_per_s: sustained ingest of ping results, `rounds` rounds of `monitors`
 *   monitors on 3 of `nodes` nodes, node batches of `batch` results; by default (`--concurrency
 *   nodes`) every node sends at once and each node's batches are stored one after another, as the
 *   hub handles a node's frames (hub/hub.ts `conn.chain`: a node's next batch waits for the
 *   previous one's write), so `nodes` batches are in flight; `--concurrency N` instead stores N
 *   batches at a time from one list in round order (N = 8 was this benchmark's default until
 *   2026-12-03, a hub with 8 nodes sending); each batch's bytes decoded and JSON-parsed and its results validated with
 *   parseBatchResults, as the hub does (the hub's parseNodeMessage also scans the frame for its
 *   nesting depth and checks its type: about 3 % more CPU a result, not in this figure), then
 *   stored by the result sink and check store (goal >= 25,000/s on a 2-core machine), with the
 *   CPU of this process and of Postgres (the benchmark database's backends plus the server's
 *   WAL writer, checkpointer and background writer, which other work on the machine shares) in %
 *   of one core and in µs per result; `decide_rounds_per_s`: the verdict job on that backlog;
 * - ceiling_copy_*: Postgres's own ceiling for the same rows: the checks and rounds the ingest
 *   stored, COPYed into empty tables of the same shape (needs ingest); ceiling_upsert_*: the same
 *   rows through conflict-checked inserts (INSERT ... SELECT ... ON CONFLICT, as ingest's
 *   statement does them), still with no client in the loop;
 * - store_*: the store statement alone (ingest.db.ts storeNodeChecks, one at a time, of up to
 *   WRITE_MAX_CHECKS checks as the check store's shared writes send it), `rounds` rounds after
 *   the steady phase of the series the ingest made, every batch row encoded beforehand: what
 *   Postgres spends per check (µs) without the hub's parsing and validation in the same process
 *   (needs ingest); each measured phase also reports the WAL written per result and the
 *   checkpoints that began during it;
 * - steady_*: `monitors` monitors x 3 nodes at 60 s fed in real time for `steady-s` seconds (each
 *   round's results when it starts), verdict and periodic jobs running, after `warm-s` seconds
 *   fed the same way unmeasured (the jobs' first runs catch up once): CPU as above;
 * - bytes_*: on-disk bytes per stored ping check and per round, as written (after VACUUM) and
 *   compacted (VACUUM FULL); packed_*: a whole day of `pack-series` series' ping checks (one a
 *   minute, each one's round trip drawn from 10 ms to 10 + `pack-spread-ms`) written raw, then packed by the pack job's own code (checks/pack.ts): bytes per check
 *   raw and packed (heap, TOAST and index of check_blocks after VACUUM, over the checks they hold)
 *   and the packing rate; rollup bytes per row (that day's, rolled up by the rollup job's
 *   statement); and the projection for 200 ping monitors at 60 s kept 90 days, raw throughout
 *   (as before packing) and raw for the rounds retention (8 days) then packed (the reference: Uptime
 *   Kuma users report about 6 GB for that);
 * - query_*: uptime and stats over `history-days` days of one monitor's history (checks for the
 *   last 30, raw for 8 and packed before; rollups before), among `others` monitors' rollups, and
 *   pages of its checks list (raw, and 17 days back among packed ones): p50/p99 ms of `requests`
 *   calls each through the routes (goals: uptime over 90 days p99 < 5 ms, stats by day p99 < 10 ms; the p99 of 200 is their third slowest), each
 *   route first made untimed `warmup-calls` times (or for `warmup-s` seconds when those take
 *   longer) so the process is as warm as a running server; `uptime_90d_cold` is the uptime read
 *   timed first, after 20 untimed calls (a process just started), with
 *   the statements each request sent, this process's CPU per request (µs) and its garbage
 *   collections over the timed calls (count, pause ms); the uptime
 *   and stats reads alone also with the CPU they cost Postgres. stats_90d_daily_query_only is
 *   what the stats route reads (checks/history-reads.ts statsAndOwner, without the HTTP
 *   pipeline): the cells with the owner, series and marks in one statement (stats.db.ts
 *   monitorStatsCells), planned from marks read once before the timed calls as the route keeps
 *   them, and the answer made from them (stats.ts statsOfCells); it timed the former sequence
 *   (rollupMarks, then monitorStats) until the route changed, so figures before and after that
 *   change are not of the same read. Both `_query_only` reads run on the generic-plan client, as
 *   the routes do; `_query_planned_per_call` is the same read on the main client.
 * `--phases` runs only the named parts (ceiling and decide need ingest, the projection needs
 * ingest and bytes); figures of the others are left out.
 * `--cpu-profile FILE` writes this process's CPU profile of the timed ingest (cpu-profile-top.ts reads it).
 * `--explain` prints EXPLAIN (ANALYZE, BUFFERS) of every statement the uptime and stats reads send (stderr).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { newId, parseBatchResults, roundPhaseMs } from '@vantage/shared-protocol';
import { decidePass } from '../../control-plane/src/checks/decide.js';
import { startCheckJobs } from '../../control-plane/src/checks/jobs.js';
import { dropExpiredPartitions, ensurePartitions } from '../../control-plane/src/checks/partitions.js';
import { connect } from '../../control-plane/src/db/sql.js';
import { rollupMarks } from '../../control-plane/src/checks/jobs.db.js';
import { monitorStatsCells } from '../../control-plane/src/checks/stats.db.js';
import { statsOfCells, statsSources } from '../../control-plane/src/checks/stats.js';
import { monitorUptime } from '../../control-plane/src/checks/uptime.js';
import { pingResult, seedNodes, seedUser } from '../../control-plane/src/checks/test-support.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { bulkMonitors, monitorHistory, otherRollups, pastPartitions, pingDay } from './lib/checks-data.js';
import { packHistory } from '../../control-plane/src/checks/pack.js';
import { rollUpHour } from '../../control-plane/src/checks/jobs.db.js';
import { encodeGroups, storeNodeChecks, type NodeCheckInsert, type StoreGroup } from '../../control-plane/src/checks/ingest.db.js';
import { WRITE_MAX_CHECKS } from '../../control-plane/src/checks/ingest.js';
import { startCpuProfile } from './lib/cpu-profiler.js';
import { quantile } from './lib/stats.js';

const { values } = parseArgs({ options: {
  monitors: { type: 'string', default: '10000' }, nodes: { type: 'string', default: '100' }, rounds: { type: 'string', default: '7' },
  batch: { type: 'string', default: '100' }, concurrency: { type: 'string', default: 'nodes' }, 'steady-s': { type: 'string', default: '60' }, 'warm-s': { type: 'string', default: '30' },
  'history-days': { type: 'string', default: '90' }, others: { type: 'string', default: '200' }, 'pack-series': { type: 'string', default: '100' },
  'pack-spread-ms': { type: 'string', default: '30' }, requests: { type: 'string', default: '200' },
  'warmup-calls': { type: 'string', default: '2000' }, 'warmup-s': { type: 'string', default: '20' },
  phases: { type: 'string', default: 'ingest,ceiling,decide,bytes,steady,store,queries' },
  explain: { type: 'boolean', default: false }, 'cpu-profile': { type: 'string' },
} });
const PHASES = new Set(values.phases.split(',').map((x) => x.trim()));
const MONITORS = Number(values.monitors);
const NODES = Number(values.nodes);
const ROUNDS = Number(values.rounds);
const BATCH = Number(values.batch);
// 'nodes': one batch of each node in flight, as the hub stores a node's frames one after another.
const PER_NODE = values.concurrency === 'nodes';
const CONCURRENCY = PER_NODE ? NODES : Number(values.concurrency);
if (!(CONCURRENCY >= 1)) throw new Error(`--concurrency: 'nodes' or a number of batches >= 1, not ${values.concurrency}`);
const STEADY_S = Number(values['steady-s']);
const WARM_S = Number(values['warm-s']);
const HISTORY_DAYS = Number(values['history-days']);
const OTHERS = Number(values.others);
const PACK_SERIES = Number(values['pack-series']);
const PACK_SPREAD_MS = Number(values['pack-spread-ms']);
const REQUESTS = Number(values.requests);
const WARMUP_CALLS = Number(values['warmup-calls']);
const WARMUP_S = Number(values['warmup-s']);

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const TICK_S = 100; // USER_HZ: /proc stat times are in 1/100 s

/** CPU seconds so far of each of `pids` (from /proc; a process gone is left out). */
function cpuS(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, (Number(f[11]) + Number(f[12])) / TICK_S);
    } catch { /* gone */ }
  }
  return out;
}

/** Backends serving the benchmark's database, and the server's WAL writer, checkpointer and background writer (shared with whatever else runs). */
let backendPids: () => Promise<number[]>;

/** The server's WAL position (bytes) and checkpoints so far (timed and requested: pg_stat_bgwriter). */
let walMark: () => Promise<{ lsn_bytes: number; checkpoints: number }>;

/**
 * Run `fn`, measuring wall time and CPU of this process and of the Postgres processes doing its
 * work, and the WAL the server wrote meanwhile (bytes; the whole server's: other work on the
 * machine adds to it) and the checkpoints that began (after one, the first change of every page
 * writes the whole page to the WAL, so a phase a checkpoint falls into costs Postgres more).
 */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; wall_s: number; node_cpu_pct: number; pg_cpu_pct: number; wal_bytes: number; checkpoints: number }> {
  const pids = await backendPids();
  const m0 = await walMark();
  const c0 = process.cpuUsage();
  const p0 = cpuS(pids);
  const w0 = performance.now();
  const value = await fn();
  const wall_s = (performance.now() - w0) / 1000;
  const c = process.cpuUsage(c0);
  const p1 = cpuS([...new Set([...pids, ...(await backendPids())])]);
  const m1 = await walMark();
  let pg = 0;
  for (const [pid, s] of p1) pg += s - (p0.get(pid) ?? 0);
  return {
    value, wall_s, node_cpu_pct: round(((c.user + c.system) / 1e6 / wall_s) * 100), pg_cpu_pct: round((pg / wall_s) * 100),
    wal_bytes: m1.lsn_bytes - m0.lsn_bytes, checkpoints: m1.checkpoints - m0.checkpoints,
  };
}

const keepalive = setInterval(() => {}, 1000);
try {
  const { app, sql, deps } = await testApp(t, { generic_plans: true, config: { checks_round_grace_ms: 3_600_000, checks_decide_interval_ms: 500, checks_jobs_interval_ms: 10_000 } });
  backendPids = async () => (await sql<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity WHERE datname = current_database() OR backend_type IN ('walwriter', 'checkpointer', 'background writer')`).map((r) => r.pid);
  walMark = async () => (await sql<{ lsn_bytes: number; checkpoints: number }[]>`
    SELECT (pg_current_wal_lsn() - '0/0')::float8 AS lsn_bytes, (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)::int AS checkpoints`)[0]!;
  await ensurePartitions(sql);
  const user_id = await seedUser(sql);
  const nodes = await seedNodes(sql, NODES);
  // Created just before the oldest round the ingest reports: a day-old monitor without a single
  // report made the silent-rounds job's first run write an hour of empty rounds for each (600,000
  // at 10,000 monitors), which the steady phase then measured as if it were steady state.
  const monitors = await bulkMonitors(sql, user_id, nodes, MONITORS, 60, (ROUNDS + 2) * 60);
  const placements = await sql<{ monitor_id: string; node_id: string }[]>`SELECT monitor_id, node_id FROM monitor_placements WHERE monitor_id = ANY(${monitors}::text[])`;
  const byNode = new Map<string, string[]>();
  for (const p of placements) byNode.set(p.node_id, [...(byNode.get(p.node_id) ?? []), p.monitor_id]);
  log(`${MONITORS} monitors on ${NODES} nodes`);

  // 1. Sustained ingest: node batches as JSON text, parsed and validated as the hub does, then stored.
  // Round k of monitor m relative to the round running at `now` (one `now` for a whole batch set,
  // so a round boundary passing while it is built cannot split a round).
  const roundStart = (m: string, k: number, now: number) => {
    const phase = roundPhaseMs(m, 60);
    return new Date(phase + (Math.floor((now - phase) / 60_000) + k) * 60_000).toISOString();
  };
  // A batch as the hub receives it: the frame's bytes (hub/frames.ts).
  const ingestOne = async (b: { node_id: string; frame: Buffer }) => {
    const msg = JSON.parse(b.frame.toString('utf8')) as { results: unknown[] };
    const { valid, invalid } = parseBatchResults(b.frame, msg.results);
    if (invalid.length > 0) throw invalid[0]!.error;
    const out = await deps.results.ingest(b.node_id, valid);
    if (out.rejected.length > 0) throw new Error(`rejected: ${JSON.stringify(out.rejected[0])}`);
  };
  const figures: Record<string, unknown> = { monitors: MONITORS, nodes: NODES, batch: BATCH, concurrency: CONCURRENCY, per_node: PER_NODE, phases: [...PHASES] };
  if (PHASES.has('ingest')) {
    const built_at = Date.now();
    const batches: Array<{ node_id: string; frame: Buffer; n: number }> = [];
    // Per node (PER_NODE), its batches in round order.
    const queues = new Map<string, Array<{ node_id: string; frame: Buffer; n: number }>>();
    for (let k = -ROUNDS; k < 0; k++) {
      for (const [node_id, ms] of byNode) {
        for (let i = 0; i < ms.length; i += BATCH) {
          const results = ms.slice(i, i + BATCH).map((m) => pingResult(m, roundStart(m, k, built_at), 10 + Math.random() * 30));
          const b = { node_id, n: results.length, frame: Buffer.from(JSON.stringify({ type: 'result.batch', batch_id: batches.length, results })) };
          batches.push(b);
          if (!queues.has(node_id)) queues.set(node_id, []);
          queues.get(node_id)!.push(b);
        }
      }
    }
    const total = batches.reduce((n, b) => n + b.n, 0);
    log(`${total} results in ${batches.length} batches`);
    let next = 0;
    const profiler = values['cpu-profile'] ? await startCpuProfile() : null;
    const ingest = await measured(() => Promise.all(PER_NODE
      ? [...queues.values()].map(async (own) => {
        for (const b of own) await ingestOne(b);
      })
      : Array.from({ length: CONCURRENCY }, async () => {
        while (next < batches.length) await ingestOne(batches[next++]!);
      })));
    if (profiler) {
      await profiler.stop(values['cpu-profile']!);
      log(`CPU profile of the ingest written to ${values['cpu-profile']}`);
    }
    const ingest_per_s = total / ingest.wall_s;
    log(`ingest: ${Math.round(ingest_per_s)} results/s`);

    // CPU per result (µs): on a shared machine this moves less with its load than results/s does.
    const perResultUs = (pct: number, wall_s: number) => round((pct / 100) * wall_s * 1e6 / total);
    Object.assign(figures, {
      ingest_results: total, ingest_results_per_s: Math.round(ingest_per_s), ingest_node_cpu_pct: ingest.node_cpu_pct, ingest_pg_cpu_pct: ingest.pg_cpu_pct,
      ingest_node_cpu_us_per_result: perResultUs(ingest.node_cpu_pct, ingest.wall_s), ingest_pg_cpu_us_per_result: perResultUs(ingest.pg_cpu_pct, ingest.wall_s),
      ingest_wal_bytes_per_result: Math.round(ingest.wal_bytes / total), ingest_checkpoints: ingest.checkpoints,
    });

    // Postgres's own ceiling for these rows: the check batches and rounds just stored, COPYed
    // (text format, server-side files: no client in the loop, one table after the other on one
    // backend) into empty tables of the same shape (columns, keys, indexes: LIKE ... INCLUDING
    // ALL). No marks, no parameters, no JS per check: what the server can take at most.
    if (PHASES.has('ceiling')) {
      const BATCH_COLS = 'first_at, last_at, stored_at, id, series, hidden, dir, data';
      const ROUND_COLS = 'scheduled_at, deadline_at, decided_at, monitor_id, interval_s, expected, reported, failed, quorum, verdict, dirty, late, counted';
      const db = (await sql<{ db: string }[]>`SELECT current_database() AS db`)[0]!.db;
      const file = (table: string) => `/tmp/${db}-${table}.copy`;
      await sql`DROP TABLE IF EXISTS bench_ceiling_batches, bench_ceiling_rounds`;
      await sql`CREATE TABLE bench_ceiling_batches (LIKE check_batches INCLUDING ALL)`;
      await sql`CREATE TABLE bench_ceiling_rounds (LIKE check_rounds INCLUDING ALL)`;
      await sql.unsafe(`COPY (SELECT ${BATCH_COLS} FROM check_batches) TO '${file('batches')}'`);
      await sql.unsafe(`COPY (SELECT ${ROUND_COLS} FROM check_rounds) TO '${file('rounds')}'`);
      const load = (table: string, cols: string, from: string) => sql.unsafe(`COPY ${table} (${cols}) FROM '${file(from)}'`);
      const ceiling = await measured(async () => {
        await load('bench_ceiling_batches', BATCH_COLS, 'batches');
        await load('bench_ceiling_rounds', ROUND_COLS, 'rounds');
      });
      const [copied] = await sql<{ n: number }[]>`SELECT coalesce(sum(cardinality(series) - coalesce(cardinality(hidden), 0)), 0)::int AS n FROM bench_ceiling_batches`;
      if (copied!.n !== total) throw new Error(`ceiling: ${copied!.n} checks copied, ${total} ingested`);
      // The same rows again through what ingest asks of the server: the batches inserted (one
      // statement, still no client and no parameters) and the rounds upserted, into the emptied tables.
      await sql`TRUNCATE bench_ceiling_batches, bench_ceiling_rounds`;
      const upsert = await measured(async () => {
        await sql.unsafe(`INSERT INTO bench_ceiling_batches (${BATCH_COLS}) SELECT ${BATCH_COLS} FROM check_batches`);
        // Each round once per check it got, as each node's batch upserts it (a statement may not
        // touch a row twice: one pass per report).
        const [reports] = await sql<{ most: number }[]>`SELECT coalesce(max(reported), 0)::int AS most FROM check_rounds`;
        for (let k = 0; k < reports!.most; k++) {
          await sql.unsafe(`INSERT INTO bench_ceiling_rounds (${ROUND_COLS}) SELECT ${ROUND_COLS} FROM check_rounds WHERE reported > ${k}
            ORDER BY monitor_id, scheduled_at ON CONFLICT (monitor_id, scheduled_at) DO UPDATE SET dirty = true WHERE NOT bench_ceiling_rounds.dirty`);
        }
      });
      await sql`DROP TABLE bench_ceiling_batches, bench_ceiling_rounds`;
      // Emptied (the server's files: the client cannot remove them).
      for (const f of ['batches', 'rounds']) await sql.unsafe(`COPY (SELECT WHERE false) TO '${file(f)}'`);
      log(`ceiling (COPY): ${Math.round(total / ceiling.wall_s)} results/s; INSERT ... SELECT: ${Math.round(total / upsert.wall_s)} results/s`);
      Object.assign(figures, {
        ceiling_copy_results_per_s: Math.round(total / ceiling.wall_s), ceiling_copy_pg_cpu_pct: ceiling.pg_cpu_pct,
        ceiling_copy_pg_cpu_us_per_result: perResultUs(ceiling.pg_cpu_pct, ceiling.wall_s),
        ceiling_upsert_results_per_s: Math.round(total / upsert.wall_s), ceiling_upsert_pg_cpu_pct: upsert.pg_cpu_pct,
        ceiling_upsert_pg_cpu_us_per_result: perResultUs(upsert.pg_cpu_pct, upsert.wall_s),
      });
    }

    // The verdict job on that backlog.
    if (PHASES.has('decide')) {
      const decide = await measured(async () => {
        let n = 0;
        for (;;) {
          const r = await decidePass({ sql }, 200);
          n += r.rounds;
          if (r.rounds === 0) return n;
        }
      });
      log(`decide: ${Math.round(decide.value / decide.wall_s)} rounds/s`);
      Object.assign(figures, { decide_rounds_per_s: Math.round(decide.value / decide.wall_s), decide_node_cpu_pct: decide.node_cpu_pct, decide_pg_cpu_pct: decide.pg_cpu_pct });
    }
  }

  // 2. Bytes on disk per stored ping check and per round: as written (after VACUUM: dead row
  // versions of judged rounds still take room) and compacted (VACUUM FULL: the floor autovacuum
  // works towards as the space is reused).
  const sizes = async () => {
    // Checks in batch rows (node checks) and in rows of `checks` (none here), both tables' partitions.
    const [c] = await sql<{ n: number; bytes: number; heap: number; toast: number; idx: number }[]>`
      SELECT (SELECT count(*) FROM checks)::float8
          + (SELECT coalesce(sum(cardinality(series) - coalesce(cardinality(hidden), 0)), 0) FROM check_batches)::float8 AS n,
        sum(pg_total_relation_size(c.oid))::float8 AS bytes, sum(pg_relation_size(c.oid))::float8 AS heap,
        sum(coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0))::float8 AS toast, sum(pg_indexes_size(c.oid))::float8 AS idx
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent IN ('checks'::regclass, 'check_batches'::regclass)`;
    const [r] = await sql<{ n: number; bytes: number }[]>`
      SELECT (SELECT count(*) FROM check_rounds)::float8 AS n, sum(pg_total_relation_size(c.oid))::float8 AS bytes
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'check_rounds'::regclass`;
    return { check: c!.bytes / c!.n, heap: c!.heap / c!.n, toast: c!.toast / c!.n, idx: c!.idx / c!.n, round: r!.bytes / r!.n };
  };
  let written: Awaited<ReturnType<typeof sizes>> | null = null;
  let compact: Awaited<ReturnType<typeof sizes>> | null = null;
  if (PHASES.has('bytes') && PHASES.has('ingest')) {
    await sql`VACUUM ANALYZE checks, check_batches, check_rounds`;
    written = await sizes();
    await sql`VACUUM FULL checks, check_batches, check_rounds`;
    compact = await sizes();
    Object.assign(figures, {
      bytes_per_ping_check: Math.round(written.check), bytes_heap_per_check: Math.round(written.heap),
      bytes_toast_per_check: Math.round(written.toast), bytes_index_per_check: Math.round(written.idx), bytes_per_round: Math.round(written.round),
      compacted_bytes_per_ping_check: Math.round(compact.check), compacted_bytes_per_round: Math.round(compact.round),
    });
  }
  /** Bytes per row of the hourly rollups (per series, per monitor). */
  const rollupRowBytes = async () => {
    const [r] = await sql<{ series: number; monitor: number }[]>`
      SELECT (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'check_rollups'::regclass)::float8
          / greatest(1, (SELECT count(*) FROM check_rollups)) AS series,
        (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'round_rollups'::regclass)::float8
          / greatest(1, (SELECT count(*) FROM round_rollups)) AS monitor`;
    return r!;
  };
  /**
   * On-disk GB for 200 ping monitors at 60 s kept 90 days on `nodes` nodes each (the reference's
   * case, raw checks kept the 90 days as on the pro plan): checks (raw for `raw_days` of them at
   * `check` bytes, packed for the rest at `packed` bytes), rounds for their 8 days, hourly rollups
   * for 90 days.
   */
  const projection = (check: number, packed: number, raw_days: number, round: number, rollup: { series: number; monitor: number }, nodes: number) =>
    (200 * 1440 * (nodes * (raw_days * check + (90 - raw_days) * packed) + 8 * round) + 200 * 24 * 90 * (nodes * rollup.series + rollup.monitor)) / 1e9;
  const kuma_checks = 200 * 90 * 1440;

  // Packed history: a whole day of ping checks, ten days ago (past the rounds retention), raw
  // first, then packed by the pack job's code; its hours rolled up by the rollup job's statement.
  // Bytes of the partitions holding blocks (each empty one made ahead is a fixed 16 kB).
  if (PHASES.has('bytes')) {
    const DAY = 86_400_000;
    const day = new Date(Math.floor(Date.now() / DAY) * DAY - 10 * DAY);
    await pastPartitions(sql, 11);
    const pm = await bulkMonitors(sql, user_id, nodes, PACK_SERIES);
    await sql`INSERT INTO check_series (monitor_id, node_id)
      SELECT DISTINCT ON (monitor_id) monitor_id, node_id FROM monitor_placements WHERE monitor_id = ANY(${pm}::text[]) ORDER BY monitor_id, node_id`;
    const checks = await pingDay(sql, pm, day, PACK_SPREAD_MS);
    for (let h = day.getTime(); h < day.getTime() + DAY; h += 3_600_000) await rollUpHour(sql, new Date(h));
    await sql`INSERT INTO round_rollups (monitor_id, hour, up_s, rounds_up)
      SELECT m, h, 3600, 60 FROM unnest(${pm}::text[]) AS m CROSS JOIN generate_series(${day}::timestamptz, ${new Date(day.getTime() + DAY - 3_600_000)}::timestamptz, interval '1 hour') AS h`;
    const part = `checks_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
    await sql.unsafe(`VACUUM ANALYZE ${part}, check_rollups, round_rollups`);
    const [raw] = await sql<{ bytes: number }[]>`SELECT pg_total_relation_size(${part}::regclass)::float8 AS bytes`;
    const rollup_row = await rollupRowBytes();
    log(`packing ${checks} checks of ${PACK_SERIES} series`);
    const pack = await measured(() => packHistory(sql, { now: new Date(), rounds_days: 8, raw_days: 90, rolled_until: new Date(), budget_ms: 3_600_000 }));
    if (pack.value.checks !== checks) throw new Error(`packed ${pack.value.checks} checks, ${checks} written`);
    await sql`VACUUM ANALYZE check_blocks`;
    const [b] = await sql<{ n: number; blocks: number; bytes: number; heap: number; toast: number; idx: number }[]>`
      SELECT (SELECT sum(checks) FROM check_blocks)::float8 AS n, (SELECT count(*) FROM check_blocks)::float8 AS blocks,
        sum(pg_total_relation_size(c.oid))::float8 AS bytes, sum(pg_relation_size(c.oid))::float8 AS heap,
        sum(coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0))::float8 AS toast, sum(pg_indexes_size(c.oid))::float8 AS idx
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'check_blocks'::regclass AND c.reltuples > 0`;
    const packed = b!.bytes / b!.n;
    log(`packed: ${round(packed)} bytes per check (raw ${round(raw!.bytes / checks)}), ${Math.round(checks / pack.wall_s)} checks/s`);
    Object.assign(figures, {
      packed_checks: checks, pack_spread_ms: PACK_SPREAD_MS, packed_raw_bytes_per_check: round(raw!.bytes / checks), packed_bytes_per_check: round(packed),
      packed_heap_bytes_per_check: round(b!.heap / b!.n), packed_toast_bytes_per_check: round(b!.toast / b!.n), packed_index_bytes_per_check: round(b!.idx / b!.n),
      packed_bytes_per_block: Math.round(b!.bytes / b!.blocks), pack_checks_per_s: Math.round(checks / pack.wall_s), pack_node_cpu_pct: pack.node_cpu_pct,
      pack_pg_cpu_pct: pack.pg_cpu_pct, rollup_bytes_per_series_hour: Math.round(rollup_row.series), rollup_bytes_per_monitor_hour: Math.round(rollup_row.monitor),
      ...(written && compact ? {
        projection_200_monitors_90d_1_node_gb: round(projection(written.check, written.check, 90, written.round, rollup_row, 1), 2),
        projection_200_monitors_90d_3_nodes_gb: round(projection(written.check, written.check, 90, written.round, rollup_row, 3), 2),
        compacted_projection_200_monitors_90d_1_node_gb: round(projection(compact.check, compact.check, 90, compact.round, rollup_row, 1), 2),
        compacted_projection_200_monitors_90d_3_nodes_gb: round(projection(compact.check, compact.check, 90, compact.round, rollup_row, 3), 2),
        packed_projection_200_monitors_90d_1_node_gb: round(projection(written.check, packed, 8, written.round, rollup_row, 1), 2),
        packed_projection_200_monitors_90d_3_nodes_gb: round(projection(written.check, packed, 8, written.round, rollup_row, 3), 2),
        reference_uptime_kuma_gb: 6, reference_uptime_kuma_bytes_per_check: Math.round(6e9 / kuma_checks),
      } : {}),
    });
  }

  // 3. Steady state: every monitor's round k's 3 results sent when round k starts, for STEADY_S seconds.
  if (PHASES.has('steady')) {
    const jobs = startCheckJobs({ ...deps, hooks: undefined });
    t.teardown(() => jobs.stop());
    const phaseS = new Map(monitors.map((m) => [m, Math.floor(roundPhaseMs(m, 60) / 1000)]));
    const bySecond = new Map<number, Array<[string, string]>>();
    for (const p of placements) bySecond.set(phaseS.get(p.monitor_id)!, [...(bySecond.get(phaseS.get(p.monitor_id)!) ?? []), [p.node_id, p.monitor_id]]);
    let sent = 0;
    // Fed for `seconds`: the rounds starting in each second, their results sent as the second starts.
    const feed = async (seconds: number) => {
      const until = Date.now() + seconds * 1000;
      let second = Math.floor(Date.now() / 1000);
      const inFlight = new Set<Promise<unknown>>();
      while (Date.now() < until) {
        const due = bySecond.get(second % 60) ?? [];
        const perNode = new Map<string, ReturnType<typeof pingResult>[]>();
        for (const [node_id, m] of due) perNode.set(node_id, [...(perNode.get(node_id) ?? []), pingResult(m, roundStart(m, 0, (second + 1) * 1000 - 1), 10 + Math.random() * 30)]);
        for (const [node_id, results] of perNode) {
          const p = ingestOne({ node_id, frame: Buffer.from(JSON.stringify({ results })) }).finally(() => inFlight.delete(p));
          inFlight.add(p);
          sent += results.length;
        }
        second++;
        await new Promise((r) => setTimeout(r, Math.max(0, second * 1000 - Date.now())));
      }
      await Promise.all(inFlight);
    };
    // A warm-up first, not measured: the jobs' first runs catch up on the rounds no node reported
    // between the monitors' creation (or the ingest phase's rounds) and now, once.
    await feed(WARM_S);
    sent = 0;
    const steady = await measured(() => feed(STEADY_S));
    log(`steady: ${sent} results in ${round(steady.wall_s)} s, node ${steady.node_cpu_pct} %, postgres ${steady.pg_cpu_pct} %`);
    await jobs.stop();
    Object.assign(figures, { steady_results: sent, steady_results_per_s: round(sent / steady.wall_s), steady_node_cpu_pct: steady.node_cpu_pct, steady_pg_cpu_pct: steady.pg_cpu_pct });
  }

  // 3b. Postgres's cost of ingest's store statement alone (ingest.db.ts storeNodeChecks, as the check
  // store's shared writes send it: up to WRITE_MAX_CHECKS checks of several nodes' batches each,
  // here one statement at a time), on the series the ingest made: `rounds` more rounds of every
  // (monitor, node), each check judged at its monitor's revision and placement version (the
  // steady state: the store's remembered view), every batch row encoded before the clock starts.
  // After the steady phase, in rounds after its last (the statement moves the series' marks past
  // them: run before, every check that phase sends would have been taken for one sent again).
  if (PHASES.has('store') && PHASES.has('ingest')) {
    const store_at = Date.now();
    const series = await sql<{ id: number; monitor_id: string; node_id: string; revision: number; placement_version: number }[]>`
      SELECT s.id, s.monitor_id, s.node_id, m.revision::int AS revision, m.placement_version::float8 AS placement_version
      FROM check_series s JOIN monitors m ON m.id = s.monitor_id WHERE s.node_id IS NOT NULL ORDER BY s.node_id, s.monitor_id`;
    const statements: Array<{ rows: NodeCheckInsert[]; groups: StoreGroup[] }> = [];
    for (let k = 1; k <= ROUNDS; k++) {
      for (let i = 0; i < series.length; i += WRITE_MAX_CHECKS) {
        const rows = series.slice(i, i + WRITE_MAX_CHECKS).map((s): NodeCheckInsert => {
          const r = pingResult(s.monitor_id, roundStart(s.monitor_id, k, store_at), 10 + Math.random() * 30);
          const output = r.output as { rtt_avg_ms: number };
          return {
            series_id: s.id, scheduled_ms: Date.parse(r.scheduled_at), start_offset_ms: 1, duration_ms: 3050, response_ms: output.rtt_avg_ms,
            success: true, error_class: null, error: null, assertions: null, output, monitor_id: s.monitor_id, node_id: s.node_id, deadline_offset_ms: 60_000,
            interval_s: 60, expected: 3, judged_at: { revision: s.revision, placement_version: s.placement_version },
          };
        });
        statements.push({ rows, groups: encodeGroups(rows).groups });
      }
    }
    const n = statements.reduce((x, s) => x + s.rows.length, 0);
    const hour_ms = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const store = await measured(async () => {
      let inserted = 0;
      for (const s of statements) inserted += (await storeNodeChecks(sql, s.rows, hour_ms, s.groups)).inserted;
      return inserted;
    });
    if (store.value !== n) throw new Error(`store: ${store.value} of ${n} checks stored`);
    const us = (pct: number) => round((pct / 100) * store.wall_s * 1e6 / n);
    log(`store statement alone: ${Math.round(n / store.wall_s)} checks/s, Postgres ${us(store.pg_cpu_pct)} µs a check`);
    Object.assign(figures, {
      store_checks: n, store_checks_per_s: Math.round(n / store.wall_s), store_pg_cpu_pct: store.pg_cpu_pct,
      store_pg_cpu_us_per_check: us(store.pg_cpu_pct), store_node_cpu_us_per_check: us(store.node_cpu_pct),
      store_wal_bytes_per_check: Math.round(store.wal_bytes / n), store_checkpoints: store.checkpoints,
    });
  }

  // 4. History queries over HISTORY_DAYS days.
  if (PHASES.has('queries')) {
    const owner = await registerUser(app);
    const [target] = await bulkMonitors(sql, owner.user_id, nodes.slice(0, 3), 1);
    await sql`UPDATE monitors SET state = 'up' WHERE id = ${target!}`;
    await pastPartitions(sql, HISTORY_DAYS + 1);
    await monitorHistory(sql, target!, nodes.slice(0, 3), HISTORY_DAYS, log);
    await otherRollups(sql, user_id, nodes, OTHERS, HISTORY_DAYS);
    await dropExpiredPartitions(sql, { raw_days: 30, rounds_days: 8, rollup_days: 730 });
    // Days past the rounds retention packed, as the pack job leaves them (checks/pack.ts).
    const packed = await packHistory(sql, { now: new Date(), rounds_days: 8, raw_days: 30, rolled_until: (await rollupMarks(sql)).hours_until, budget_ms: 3_600_000 });
    log(`history packed: ${packed.days} days, ${packed.checks} checks`);
    await sql`VACUUM ANALYZE`;
    log('history ready');
    // Each read is first made untimed until the process is warm (WARMUP_CALLS calls, or WARMUP_S
    // seconds when those take longer): the first calls of a process open the pool's connections,
    // and V8 keeps optimizing the request's code for thousands of calls (an uptime read's CPU fell
    // from 1,900 to 650 µs over its first 3,000 calls here). A running server has made those calls
    // long before; `uptime_90d_cold` times the same read after only COLD_WARMUP calls, as every
    // route was timed before the warm-up (docs/benchmarks.md).
    const COLD_WARMUP = 20;
    // Causes of a tail that move less with the machine's load than latencies do: the statements
    // each request sends (the app's client's debug hook counts them), this process's CPU per
    // request, and its garbage collections over the timed calls (count and pause ms).
    let statements = 0;
    (sql.options as unknown as { debug: unknown }).debug = () => { statements++; };
    const gc = { n: 0, ms: 0 };
    const gcWatch = new PerformanceObserver((list) => { for (const e of list.getEntries()) { gc.n++; gc.ms += e.duration; } });
    gcWatch.observe({ entryTypes: ['gc'] });
    t.teardown(() => gcWatch.disconnect());
    /** Make `fn` untimed `calls` times, or for `max_s` seconds when those take longer. */
    const warm = async (fn: () => Promise<unknown>, calls: number, max_s: number) => {
      const until = performance.now() + max_s * 1000;
      for (let i = 0; i < calls && performance.now() < until; i++) await fn();
    };
    const WARM = { calls: WARMUP_CALLS, s: WARMUP_S };
    const time = async (path: string, warmup = WARM) => {
      const get = () => call(app, 'GET', `/v1/monitors/${target}${path}`, { token: owner.access_token });
      const ms: number[] = [];
      await warm(get, warmup.calls, warmup.s);
      statements = 0;
      Object.assign(gc, { n: 0, ms: 0 });
      const c0 = process.cpuUsage();
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = performance.now();
        const res = await get();
        ms.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      }
      const c = process.cpuUsage(c0);
      return {
        p50_ms: round(quantile(ms, 0.5)), p99_ms: round(quantile(ms, 0.99)), statements_per_request: round(statements / REQUESTS, 2),
        node_cpu_us: round((c.user + c.system) / REQUESTS), gc_count: gc.n, gc_ms: round(gc.ms),
      };
    };
    const queries: Record<string, { p50_ms: number; p99_ms: number; node_cpu_us?: number; pg_cpu_us?: number; statements_per_request?: number; gc_count?: number; gc_ms?: number }> = {
      // First, before any other route warmed the pipeline: the figure as a process just started gives it.
      uptime_90d_cold: await time('/uptime?period=90d', { calls: COLD_WARMUP, s: Infinity }),
      uptime_90d: await time('/uptime?period=90d'),
      uptime_30d: await time('/uptime?period=30d'),
      stats_90d_daily: await time(`/stats?from=-${HISTORY_DAYS}d&bucket_s=86400`),
      stats_90d_daily_by_node: await time(`/stats?from=-${HISTORY_DAYS}d&bucket_s=86400&group_by=node`),
      stats_24h_5min_raw: await time('/stats?from=-24h&bucket_s=300'),
      checks_24h_page1: await time('/checks?from=-24h'),
      // Across the raw/packed boundary: the first page (raw), and a page of packed checks 17 days back.
      checks_30d_page1: await time('/checks?from=-30d'),
      checks_30d_packed_page: await time('/checks?from=-30d&page=500&page_size=100'),
      state_changes: await time('/state-changes'),
      monitor_read: await time(''),
    };
    // The same reads without the HTTP pipeline (authentication, rate limit, envelope): where the time goes.
    // Also the CPU each read costs this process and Postgres, µs: on a shared machine it moves less
    // with the load than the latencies do.
    const direct = async (fn: () => Promise<unknown>, n = 200) => {
      const ms: number[] = [];
      await warm(fn, WARM.calls, WARM.s);
      Object.assign(gc, { n: 0, ms: 0 });
      const cpu = await measured(async () => {
        for (let i = 0; i < n; i++) {
          const t0 = performance.now();
          await fn();
          ms.push(performance.now() - t0);
        }
      });
      const us = (pct: number) => round((pct / 100) * cpu.wall_s * 1e6 / n);
      return { p50_ms: round(quantile(ms, 0.5)), p99_ms: round(quantile(ms, 0.99)), node_cpu_us: us(cpu.node_cpu_pct), pg_cpu_us: us(cpu.pg_cpu_pct), gc_count: gc.n, gc_ms: round(gc.ms) };
    };
    // The stats route's read (history-reads.ts statsAndOwner) with the marks it holds between requests.
    const marks = await rollupMarks(sql);
    const routeStats = async (s: typeof sql) => {
      const from = new Date(Date.now() - HISTORY_DAYS * 86_400_000);
      const to = new Date();
      const sources = statsSources(from, to, 86_400, marks);
      const read = await monitorStatsCells(s, target!, sources, 86_400);
      return statsOfCells(read.context.series, from, to, 86_400, undefined, sources, read.cells);
    };
    Object.assign(queries, {
      // On the generic-plan client, as the route reads it; then planned per call (the main client).
      uptime_90d_query_only: await direct(() => monitorUptime(deps.generic_sql!, target!, new Date(Date.now() - 90 * 86_400_000), new Date(), '90d', new Date(Date.now() - 8 * 86_400_000))),
      uptime_90d_query_planned_per_call: await direct(() => monitorUptime(sql, target!, new Date(Date.now() - 90 * 86_400_000), new Date(), '90d', new Date(Date.now() - 8 * 86_400_000))),
      stats_90d_daily_query_only: await direct(() => routeStats(deps.generic_sql!)),
      stats_90d_daily_query_planned_per_call: await direct(() => routeStats(sql)),
    });
    if (values.explain) {
      // The statements the reads send, captured from a client of the same database, each explained.
      const seen: Array<{ query: string; params: unknown[] }> = [];
      const o = sql.options as unknown as { host: string[]; port: number[]; database: string; user: string };
      const spy = connect(`postgres://${o.user}@${o.host[0]}:${o.port[0]}/${o.database}`, 1);
      // `postgres` reads its options' debug hook on every query.
      (spy.options as unknown as { debug: unknown }).debug = (_c: number, query: string, params: unknown[]) => {
        if (!query.startsWith('EXPLAIN')) seen.push({ query, params });
      };
      t.teardown(() => spy.end());
      await monitorUptime(spy as never, target!, new Date(Date.now() - 90 * 86_400_000), new Date(), '90d', new Date(Date.now() - 8 * 86_400_000));
      await routeStats(spy as never);
      for (const q of seen) {
        const plan = await spy.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${q.query}`, q.params as never[]);
        process.stderr.write(`\n${q.query.replace(/\s+/g, ' ').slice(0, 200)}\n${plan.map((r: Record<string, unknown>) => r['QUERY PLAN']).join('\n')}\n`);
      }
    }
    const u = await call(app, 'GET', `/v1/monitors/${target}/uptime?period=90d`, { token: owner.access_token });
    Object.assign(figures, {
      history_days: HISTORY_DAYS, others: OTHERS, uptime_90d: u.body.data, queries,
    });
  }

  console.log(JSON.stringify({ ...figures, load_average: loadavg().map((x) => round(x)) }, null, 2));
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  for (const fn of teardowns) await fn();
  clearInterval(keepalive);
}
