/**
 * Benchmark (not a test): a candidate layout for fresh check history, a row per node batch,
 * measured beside the row per check stored today, on the real Postgres at TEST_DATABASE_URL (a
 * scratch database, dropped afterwards). Nothing in the product uses the candidate yet: this
 * decides whether it meets the storage goal (<= 60 bytes written per check) at what cost in
 * ingest and in reads, before the readers are moved to it.
 *
 *   npx tsx test/bench/batch-storage-bench.ts [--monitors 1000] [--rounds 60] [--batch 100]
 *       [--concurrency 8] [--reads 200] [--toast-target 2032]
 *       [--dir bytes|arrays]
 *       [--backlog-rounds 10]
 *
 * Data: `monitors` ping monitors on the same 3 nodes, `rounds` rounds of 60 s each, one ping
 * check per node and round (4 echo replies around a round trip of 10-40 ms drawn per check), sent
 * as node batches of `batch` checks, `concurrency` batches in flight.
 *
 * - rows: a row per check, as node checks were stored before batches and the control plane's
 *   checks still are (checks/ingest.db.ts insertChecks into `checks`, conflict-checked on (series,
 *   scheduled_at), then addToRounds; the output compressed alone with the output dictionary,
 *   checks/output-codec.ts).
 * - batches: a row per batch, its columns made by checks/batch-codec.ts: `series` int4[] (GIN-
 *   indexed: a series' batches), `dir` (per check: scheduled_at as a varint of ms after the row's
 *   `first_at`, response_ms as a float32, then a bitmap of success: what statistics read without
 *   decompressing; with `--dir arrays`, three arrays instead, at_ms int4[], response_ms real[] and
 *   success bool[], which SQL reads with unnest: the verdict, stats and rollup statements could
 *   keep their shape, where `dir` must be decoded by the client) and `data`, the checks' other
 *   fields and outputs as JSON lines compressed together in one Zstandard frame with the output
 *   dictionary, not compressed again and moved out of the row (TOAST) past `toast-target` bytes
 *   (toast_tuple_target; 2032 is Postgres's default: kept in line up to a page, the rows of ~5 kB
 *   left most of each page empty); a btree on `last_at`.
 *   A check has no key of its own, so three ways to store a check sent twice once are measured,
 *   each on its own copies of the tables, in turns with today's (round by round, the order
 *   rotated), so all see the same database around them:
 *   - `reports`: the round keeps the series that reported it (`reports int4[]` on a copy of
 *     check_rounds) and the statement adds only series not there yet: a round is written on
 *     every report, where today's statement leaves a waiting round alone;
 *   - `hwm`: each series keeps the scheduled_at of its latest stored check (a copy of
 *     check_series with `last_at`, fillfactor 50 for HOT updates), locked and moved forward by
 *     the statement; a check not after it (a resend, or a late result sent after a later one)
 *     is kept out of the rounds and marked in the row (`maybe_stored`), for a second statement
 *     that looks it up in the series' batches (resolveMaybe; the timed ingest sends every check
 *     once and in order, so only the resend check and the reversed backlog below take it). Rounds
 *     are written as today's statement writes them;
 *   - `counted`: as `hwm`, and every report adds to its round's `reported`/`failed` (a copy of
 *     check_rounds at fillfactor 70): the counts are exact at ingest, so the verdict job would
 *     not need to look the checks up to know a round complete (today it does, by key).
 *
 * Prints JSON: bytes per check of each (heap + TOAST + indexes after VACUUM, rounds apart; the
 * batches' parts, and their GIN index rebuilt), checks per second and this process's CPU per
 * check, and p50/p99 ms of three reads from rows and from batches, alternated: a monitor's last
 * 100 checks with their outputs (the checks list's first page: 3 series), each series' check of
 * one round with its success (what the verdict job counts), and one series' last hour as
 * statistics read it (scheduled_at, success, response time); then a node's backlog of
 * `backlog-rounds` rounds stored into rows and into batches (`hwm` with its second statement),
 * as the outbox releases it and newest round first: checks per second and the share of checks the
 * second statement took, each check checked to be stored once. The load is printed with the
 * figures: quote medians of pairs on a quiet machine.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { decodeDetails, decodeDirectory, encodeBatch, type BatchCheck } from '../../control-plane/src/checks/batch-codec.js';
import { decodeOutput, encodeOutput } from '../../control-plane/src/checks/output-codec.js';
import { addToRounds, insertChecks, type CheckInsert } from '../../control-plane/src/checks/check-rows.db.js';
import { createSeries } from '../../control-plane/src/checks/ingest.db.js';
import { ensurePartitions } from '../../control-plane/src/checks/partitions.js';
import { seedNodes, seedUser } from '../../control-plane/src/checks/test-support.js';
import { testDatabase } from '../../control-plane/src/test-support/db.js';
import { bulkMonitors } from './lib/checks-data.js';
import { quantile } from './lib/stats.js';

const { values } = parseArgs({ options: {
  monitors: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '60' }, batch: { type: 'string', default: '100' },
  concurrency: { type: 'string', default: '8' }, reads: { type: 'string', default: '200' },
  'toast-target': { type: 'string', default: '2032' }, dir: { type: 'string', default: 'bytes' }, 'backlog-rounds': { type: 'string', default: '10' },
} });
const DIR = values.dir;
if (DIR !== 'bytes' && DIR !== 'arrays') throw new Error(`--dir: bytes or arrays, not ${DIR}`);
const TOAST_TARGET = Number(values['toast-target']);
const BACKLOG = Number(values['backlog-rounds']);
const MONITORS = Number(values.monitors);
const ROUNDS = Number(values.rounds);
const BATCH = Number(values.batch);
const CONCURRENCY = Number(values.concurrency);
const READS = Number(values.reads);
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

let seed = 11;
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** One check as a node reports it (what both layouts store), with the monitor whose round it fills. */
interface Check extends BatchCheck {
  monitor_id: string;
  response_ms: number;
}

function pingCheck(series_id: number, monitor_id: string, scheduled_ms: number): Check {
  const base = 10 + rnd() * 30;
  const rtts = Array.from({ length: 4 }, () => r3(base + rnd() * 2));
  const avg = rtts.reduce((a, b) => a + b, 0) / 4;
  const output = {
    resolved_address: '198.18.1.10', packets_sent: 4, packets_received: 4, packet_loss: 0, rtt_min_ms: Math.min(...rtts), rtt_avg_ms: r3(avg),
    rtt_max_ms: Math.max(...rtts), rtt_stddev_ms: r3(Math.sqrt(rtts.reduce((a, b) => a + (b - avg) ** 2, 0) / 4)),
    packets: rtts.map((rtt, seq) => ({ seq, rtt_ms: rtt, ttl: 57 })),
  };
  return {
    series_id, monitor_id, scheduled_ms, start_offset_ms: Math.floor(rnd() * 5), duration_ms: 3000 + Math.floor(base), response_ms: Math.fround(r3(avg)),
    success: true, error_class: null, error: null, assertions: [], output,
  };
}

/** The row of a batch (see the header): the codec's columns, as base64 for the statement, or the directory as arrays (`--dir arrays`). */
function batchRow(checks: Check[]) {
  // The checks as they are (a copy of each made here cost more than encoding them).
  const b = encodeBatch(checks);
  return {
    first_ms: b.first_ms, last_ms: b.last_ms, series: b.series,
    dir: DIR === 'bytes' ? b.dir.toString('base64') : null, at_ms: DIR === 'arrays' ? checks.map((c) => c.scheduled_ms - b.first_ms) : null,
    response_ms: DIR === 'arrays' ? checks.map((c) => c.response_ms) : null, success: DIR === 'arrays' ? checks.map((c) => String(c.success)) : null,
    data: b.data.toString('base64'),
  };
}

/** Each check's scheduled_at (epoch ms) of a batch row read with `dir` and `at_ms` (whichever `--dir` stored). */
function scheduledOf(r: { first_at: Date; series: number[]; dir: Buffer | null; at_ms: number[] | null }): number[] {
  return r.dir !== null ? decodeDirectory(r.first_at.getTime(), r.series.length, r.dir).scheduled_ms : r.at_ms!.map((x) => r.first_at.getTime() + x);
}

async function inFlight<T>(items: T[], fn: (x: T) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
  return (performance.now() - t0) / 1000;
}

const teardowns: Array<() => unknown> = [];
const keepalive = setInterval(() => {}, 1000);
try {
  const { sql } = await testDatabase({ teardown: (fn) => void teardowns.unshift(fn) });
  const load_start = loadavg();
  await ensurePartitions(sql);
  const user_id = await seedUser(sql);
  const nodes = await seedNodes(sql, 3);
  const monitors = await bulkMonitors(sql, user_id, nodes, MONITORS);
  const series = new Map<string, Map<string, number>>();
  for (const node of nodes) series.set(node, await createSeries(sql, node, monitors));
  for (const v of ['reports', 'hwm', 'counted']) {
    await sql.unsafe(`CREATE TABLE bench_${v}_rounds (LIKE check_rounds INCLUDING ALL)`);
    await sql.unsafe(`CREATE TABLE bench_${v}_batches (first_at timestamptz NOT NULL, last_at timestamptz NOT NULL, id bigint GENERATED ALWAYS AS IDENTITY,
      series int4[] NOT NULL, dir bytea NULL, at_ms int4[] NULL, response_ms real[] NULL, success bool[] NULL, maybe_stored int4[] NULL, data bytea NOT NULL)`);
    await sql.unsafe(`ALTER TABLE bench_${v}_batches ALTER COLUMN data SET STORAGE EXTERNAL`);
    await sql.unsafe(`ALTER TABLE bench_${v}_batches SET (toast_tuple_target = ${TOAST_TARGET})`);
    await sql.unsafe(`CREATE INDEX ON bench_${v}_batches USING gin (series)`);
    await sql.unsafe(`CREATE INDEX ON bench_${v}_batches (last_at)`);
  }
  await sql`ALTER TABLE bench_reports_rounds ADD COLUMN reports int4[] NOT NULL DEFAULT '{}'`;
  await sql`ALTER TABLE bench_counted_rounds SET (fillfactor = 70)`;
  for (const v of ['hwm', 'counted']) {
    await sql.unsafe(`CREATE TABLE bench_${v}_series (id int4 PRIMARY KEY, last_at timestamptz NOT NULL) WITH (fillfactor = 50)`);
    await sql.unsafe(`INSERT INTO bench_${v}_series SELECT id, '-infinity' FROM check_series`);
  }

  // Rounds of the last `ROUNDS` minutes, each node's checks in batches of BATCH (the same for both).
  const now = Date.now();
  const start = Math.floor(now / 60_000) * 60_000 - ROUNDS * 60_000;
  const batches: Check[][] = [];
  for (let k = 0; k < ROUNDS; k++) {
    for (const node of nodes) {
      for (let i = 0; i < monitors.length; i += BATCH) {
        batches.push(monitors.slice(i, i + BATCH).map((m) => pingCheck(series.get(node)!.get(m)!, m, start + k * 60_000)));
      }
    }
  }
  const total = batches.reduce((n, b) => n + b.length, 0);
  log(`${total} checks in ${batches.length} batches of ${BATCH}, ${MONITORS} monitors x 3 nodes x ${ROUNDS} rounds`);
  const hour_ms = Math.floor(now / 3_600_000) * 3_600_000;
  const figures: Record<string, unknown> = { monitors: MONITORS, rounds: ROUNDS, batch: BATCH, concurrency: CONCURRENCY, toast_target: TOAST_TARGET, dir: DIR, checks: total };

  // 1. Ingest: today's statement and the candidates', over the same checks, round by round in
  // turns (each round's batches into each layout, the order rotated every round), so that all
  // see the same database around them: checkpoints, autovacuum, and their own tables growing.
  // A row per check as the control plane's own checks are still stored (node checks were so until
  // batches): the rows inserted, then their rounds (two statements; before batches, node checks
  // took one statement doing both).
  const rows = async (b: Check[]) => {
    const inserted = await insertChecks(sql, b.map((c): CheckInsert => ({
      series_id: c.series_id, scheduled_at: new Date(c.scheduled_ms).toISOString(), start_offset_ms: c.start_offset_ms, duration_ms: c.duration_ms,
      response_ms: c.response_ms, success: c.success, error_class: null, error: null, assertions: '[]', output: null,
      output_z: `\\x${encodeOutput(c.output).toString('hex')}`,
    })));
    const added = b.filter((c) => inserted.has(`${c.series_id}/${c.scheduled_ms}`));
    await addToRounds(sql, added.map((c) => ({
      monitor_id: c.monitor_id, scheduled_at: new Date(c.scheduled_ms).toISOString(), deadline_at: new Date(c.scheduled_ms + 90_000).toISOString(),
      interval_s: 60, expected: 3, reported: 1, failed: c.success ? 0 : 1,
    })));
  };
  const batchValues = (r: ReturnType<typeof batchRow>) => sql`
    'epoch'::timestamptz + ${r.first_ms}::int8 * interval '1 millisecond', 'epoch'::timestamptz + ${r.last_ms}::int8 * interval '1 millisecond',
    ${r.series}::int4[], decode(${r.dir}, 'base64'), ${r.at_ms}::int4[], ${r.response_ms}::real[], ${r.success}::text[]::bool[], decode(${r.data}, 'base64')`;
  const input = (b: Check[]) => sql`
    SELECT u.*, 'epoch'::timestamptz + u.at_ms * interval '1 millisecond' AS at
    FROM unnest(${b.map((c) => c.series_id)}::int4[], ${b.map((c) => c.scheduled_ms)}::int8[], ${b.map((c) => c.monitor_id)}::text[],
      ${b.map((c) => String(c.success))}::text[]::bool[]) WITH ORDINALITY AS u(series_id, at_ms, monitor_id, success, ord)`;
  /**
   * The `hwm` and `counted` statement: the series' marks locked and moved forward, checks after
   * their mark added to their rounds (`counted`: every report counted; `hwm`: a waiting round
   * left alone), the batch stored with the positions of those not after it.
   */
  const markedStore = async (v: 'hwm' | 'counted', b: Check[]) => {
    const r = batchRow(b);
    const t = (name: string) => sql(`bench_${v}_${name}`);
    const [out] = await sql<{ id: string; maybe_stored: number[] | null }[]>`
      WITH input AS MATERIALIZED (${input(b)}),
      old AS MATERIALIZED (SELECT s.id, s.last_at FROM ${t('series')} s WHERE s.id = ANY(${r.series}::int4[]) ORDER BY s.id FOR UPDATE),
      moved AS (UPDATE ${t('series')} s SET last_at = i.at FROM (SELECT series_id, max(at) AS at FROM input GROUP BY series_id) i
        WHERE s.id = i.series_id AND s.last_at < i.at),
      added AS MATERIALIZED (SELECT i.* FROM input i JOIN old o ON o.id = i.series_id WHERE i.at > o.last_at),
      rounds AS (
        INSERT INTO ${t('rounds')} AS r (scheduled_at, deadline_at, monitor_id, interval_s, expected, reported, failed, late)
        SELECT at, at + interval '90 seconds', monitor_id, 60, 3, count(*)::smallint, (count(*) FILTER (WHERE NOT success))::smallint, false
        FROM added GROUP BY monitor_id, at ORDER BY monitor_id, at
        ON CONFLICT (monitor_id, scheduled_at) DO UPDATE SET ${v === 'counted'
          ? sql`reported = r.reported + excluded.reported, failed = r.failed + excluded.failed, dirty = true`
          : sql`dirty = true WHERE NOT r.dirty`}),
      maybe AS (SELECT array_agg(ord::int4 ORDER BY ord) AS ords FROM input i WHERE NOT EXISTS (SELECT 1 FROM added a WHERE a.ord = i.ord))
      INSERT INTO ${t('batches')} (first_at, last_at, series, dir, at_ms, response_ms, success, data, maybe_stored)
      SELECT ${batchValues(r)}, (SELECT ords FROM maybe)
      RETURNING id, maybe_stored`;
    return { id: out!.id, maybe: out!.maybe_stored };
  };
  /**
   * The second statement for the checks of batch row `id` (`b`) that were not after their
   * series' mark (`maybe`, 1-based positions): in one transaction holding their series' rows, the
   * batches that may hold them are read and their directories decoded; those found there (and not
   * themselves left unresolved) are duplicates and stay marked in this row (the whole row is
   * deleted when all are), the rest go to their rounds and are unmarked.
   * @returns how many were found stored before
   */
  const resolveMaybe = async (v: 'hwm' | 'counted', id: string, b: Check[], maybe: number[]): Promise<number> => sql.begin(async (tx) => {
    const t = (name: string) => sql(`bench_${v}_${name}`);
    const cand = maybe.map((o) => b[o - 1]!);
    const ids = [...new Set(cand.map((c) => c.series_id))].sort((x, y) => x - y);
    await tx`SELECT id FROM ${t('series')} WHERE id = ANY(${ids}::int4[]) ORDER BY id FOR UPDATE`;
    const from = new Date(Math.min(...cand.map((c) => c.scheduled_ms)));
    const to = new Date(Math.max(...cand.map((c) => c.scheduled_ms)));
    const rows = await tx<{ first_at: Date; series: number[]; dir: Buffer | null; at_ms: number[] | null; maybe_stored: number[] | null }[]>`
      SELECT first_at, series, dir, at_ms, maybe_stored FROM ${t('batches')}
      WHERE series && ${ids}::int4[] AND last_at >= ${from} AND first_at <= ${to} AND id <> ${id}`;
    const wanted = new Set(ids);
    const stored = new Set<string>();
    for (const r of rows) {
      const at = scheduledOf(r);
      const dead = new Set(r.maybe_stored ?? []);
      r.series.forEach((s, j) => { if (wanted.has(s) && !dead.has(j + 1)) stored.add(`${s}/${at[j]}`); });
    }
    const dups = maybe.filter((o) => stored.has(`${b[o - 1]!.series_id}/${b[o - 1]!.scheduled_ms}`));
    const fresh = maybe.filter((o) => !dups.includes(o)).map((o) => b[o - 1]!);
    if (fresh.length > 0) {
      await tx`
        WITH input AS (${input(fresh)})
        INSERT INTO ${t('rounds')} AS r (scheduled_at, deadline_at, monitor_id, interval_s, expected, reported, failed, late)
        SELECT at, at + interval '90 seconds', monitor_id, 60, 3, count(*)::smallint, (count(*) FILTER (WHERE NOT success))::smallint, false
        FROM input GROUP BY monitor_id, at ORDER BY monitor_id, at
        ON CONFLICT (monitor_id, scheduled_at) DO UPDATE SET ${v === 'counted'
          ? sql`reported = r.reported + excluded.reported, failed = r.failed + excluded.failed, dirty = true`
          : sql`dirty = true, late = true`}`;
    }
    if (dups.length === b.length) await tx`DELETE FROM ${t('batches')} WHERE id = ${id}`;
    else await tx`UPDATE ${t('batches')} SET maybe_stored = ${dups.length > 0 ? dups : null}::int4[] WHERE id = ${id}`;
    return dups.length;
  });
  /** A batch through the `hwm` statement, and the second statement when it leaves checks to it. @returns how many went to the second */
  const storeMarked = async (v: 'hwm' | 'counted', b: Check[]): Promise<number> => {
    const { id, maybe } = await markedStore(v, b);
    if (maybe !== null) await resolveMaybe(v, id, b, maybe);
    return maybe?.length ?? 0;
  };
  const variants: Record<string, (b: Check[]) => Promise<unknown>> = {
    rows,
    reports: async (b) => {
      const r = batchRow(b);
      await sql`
        WITH input AS (${input(b)}),
        g AS (SELECT monitor_id, at, array_agg(series_id ORDER BY series_id) AS reports, count(*) FILTER (WHERE NOT success) AS failed
          FROM input GROUP BY monitor_id, at),
        rounds AS (
          INSERT INTO bench_reports_rounds AS r (scheduled_at, deadline_at, monitor_id, interval_s, expected, reported, failed, late, reports)
          SELECT at, at + interval '90 seconds', monitor_id, 60, 3, cardinality(reports), failed, false, reports FROM g ORDER BY monitor_id, at
          ON CONFLICT (monitor_id, scheduled_at) DO UPDATE
            SET reports = r.reports || ARRAY(SELECT unnest(excluded.reports) EXCEPT SELECT unnest(r.reports)),
              reported = cardinality(r.reports || ARRAY(SELECT unnest(excluded.reports) EXCEPT SELECT unnest(r.reports))), dirty = true
            WHERE NOT excluded.reports <@ r.reports
          RETURNING 1)
        INSERT INTO bench_reports_batches (first_at, last_at, series, dir, at_ms, response_ms, success, data) SELECT ${batchValues(r)} WHERE EXISTS (SELECT 1 FROM rounds)`;
    },
    hwm: async (b) => {
      if (await storeMarked('hwm', b) > 0) throw new Error('the benchmark sends every check once, in order');
    },
    counted: async (b) => {
      if (await storeMarked('counted', b) > 0) throw new Error('the benchmark sends every check once, in order');
    },
  };
  const spent = new Map(Object.keys(variants).map((v) => [v, { wall_s: 0, cpu_us: 0 }]));
  const perRound = batches.length / ROUNDS;
  for (let k = 0; k < ROUNDS; k++) {
    const names = Object.keys(variants);
    const order = [...names.slice(k % names.length), ...names.slice(0, k % names.length)];
    for (const name of order) {
      const cpu0 = process.cpuUsage();
      const wall_s = await inFlight(batches.slice(k * perRound, (k + 1) * perRound), variants[name]!);
      const cpu = process.cpuUsage(cpu0);
      const t = spent.get(name)!;
      t.wall_s += wall_s;
      t.cpu_us += cpu.user + cpu.system;
    }
  }
  for (const [name, t] of spent) {
    figures[`${name}_checks_per_s`] = Math.round(total / t.wall_s);
    figures[`${name}_node_cpu_us_per_check`] = round(t.cpu_us / total);
  }
  // A batch sent again: nothing stored, no round changed.
  const count = async () => (await sql<{ n: number; r: number }[]>`
    SELECT (SELECT count(*) FROM bench_hwm_batches)::int AS n, (SELECT sum(reported)::int FROM bench_hwm_rounds) AS r`)[0]!;
  const before_resend = await count();
  if (await storeMarked('hwm', batches[0]!) !== batches[0]!.length || JSON.stringify(await count()) !== JSON.stringify(before_resend)) {
    throw new Error('a batch sent again was stored again');
  }
  log(`checks/s: ${[...spent.keys()].map((v) => `${v} ${figures[`${v}_checks_per_s`]}`).join(', ')}`);

  // 2. Bytes per check after VACUUM (heap, TOAST, indexes), rounds apart; the GIN index also
  // rebuilt (its pending list's pages stay allocated after VACUUM merged them: the rebuilt size is
  // what its posting lists take).
  await sql`VACUUM ANALYZE checks, check_rounds, bench_reports_rounds, bench_reports_batches, bench_hwm_rounds, bench_hwm_batches, bench_hwm_series,
    bench_counted_rounds, bench_counted_batches, bench_counted_series`;
  const size = async (parent: string): Promise<number> => (await sql<{ b: number }[]>`
    SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 AS b FROM pg_class c
    WHERE c.oid = ${parent}::regclass OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = ${parent}::regclass)`)[0]!.b;
  const perCheck = async (parent: string) => round((await size(parent)) / total);
  const indexes = async (table: string) => (await sql<{ gin: number; btree: number }[]>`
    SELECT coalesce(sum(pg_relation_size(i.indexrelid)) FILTER (WHERE a.amname = 'gin'), 0)::float8 AS gin,
      coalesce(sum(pg_relation_size(i.indexrelid)) FILTER (WHERE a.amname = 'btree'), 0)::float8 AS btree
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = ${table}::regclass`)[0]!;
  figures.rows_bytes_per_check = await perCheck('checks');
  figures.rows_round_bytes_per_check = await perCheck('check_rounds');
  for (const v of Object.keys(variants).filter((x) => x !== 'rows')) {
    figures[`${v}_bytes_per_check`] = await perCheck(`bench_${v}_batches`);
    figures[`${v}_round_bytes_per_check`] = await perCheck(`bench_${v}_rounds`);
  }
  figures.hwm_series_bytes_per_check = await perCheck('bench_hwm_series');
  const [parts] = await sql<{ data: number; dir: number; series: number; heap: number; toast: number }[]>`
    SELECT sum(octet_length(data))::float8 AS data,
      sum(coalesce(octet_length(dir), 0) + coalesce(pg_column_size(at_ms), 0) + coalesce(pg_column_size(response_ms), 0) + coalesce(pg_column_size(success), 0))::float8 AS dir,
      sum(pg_column_size(series))::float8 AS series,
      pg_relation_size('bench_hwm_batches')::float8 AS heap,
      coalesce(pg_total_relation_size(nullif((SELECT reltoastrelid FROM pg_class WHERE oid = 'bench_hwm_batches'::regclass), 0)), 0)::float8 AS toast
    FROM bench_hwm_batches`;
  const before = await indexes('bench_hwm_batches');
  await sql`REINDEX TABLE bench_hwm_batches`;
  const after = await indexes('bench_hwm_batches');
  Object.assign(figures, {
    batch_heap_bytes_per_check: round(parts!.heap / total), batch_toast_bytes_per_check: round(parts!.toast / total),
    batch_data_bytes_per_check: round(parts!.data / total), batch_dir_bytes_per_check: round(parts!.dir / total), batch_series_bytes_per_check: round(parts!.series / total),
    batch_gin_bytes_per_check: round(before.gin / total), batch_gin_rebuilt_bytes_per_check: round(after.gin / total), batch_btree_bytes_per_check: round(before.btree / total),
    hwm_bytes_per_check_gin_rebuilt: await perCheck('bench_hwm_batches'),
  });
  log(`bytes per check: rows ${figures.rows_bytes_per_check}, batches ${figures.hwm_bytes_per_check} (GIN rebuilt: ${figures.hwm_bytes_per_check_gin_rebuilt})`);

  // 3. Reads: a monitor's last 100 checks with outputs; one series' last hour for statistics.
  const times = { rows_page: [] as number[], batches_page: [] as number[], rows_hour: [] as number[], batches_hour: [] as number[],
    rows_round: [] as number[], batches_round: [] as number[] };
  const to = new Date(start + ROUNDS * 60_000);
  const hour_from = new Date(to.getTime() - 3_600_000);
  const page_from = new Date(to.getTime() - Math.ceil(100 / 3) * 60_000 - 60_000);
  for (let i = 0; i < READS; i++) {
    const m = monitors[Math.floor(rnd() * monitors.length)]!;
    const ids = nodes.map((n) => series.get(n)!.get(m)!);
    const round_at = new Date(start + Math.floor(rnd() * ROUNDS) * 60_000);
    const reads: Array<[keyof typeof times, () => Promise<number>]> = [
      ['rows_page', async () => {
        const rows = await sql<{ output_z: Buffer }[]>`
          SELECT scheduled_at, series_id, start_offset_ms, duration_ms, response_ms, success, error_class, error, assertions, output_z
          FROM checks WHERE series_id = ANY(${ids}::int[]) AND scheduled_at < ${to} ORDER BY scheduled_at DESC, series_id LIMIT 100`;
        return rows.map((r) => decodeOutput(r.output_z)).length;
      }],
      ['batches_page', async () => {
        if (DIR === 'arrays') {
          const rows = await sql<{ data: Buffer; count: number; pos: number[]; series: number[]; at: Date[] }[]>`
            SELECT b.data, cardinality(b.series) AS count, x.pos, x.series, x.at FROM bench_hwm_batches b
            CROSS JOIN LATERAL (SELECT array_agg(u.o::int4 - 1 ORDER BY u.o) AS pos, array_agg(u.s ORDER BY u.o) AS series,
                array_agg(b.first_at + u.a * interval '1 millisecond' ORDER BY u.o) AS at
              FROM unnest(b.series, b.at_ms) WITH ORDINALITY AS u(s, a, o) WHERE u.s = ANY(${ids}::int4[]) AND b.first_at + u.a * interval '1 millisecond' < ${to}) x
            WHERE b.series && ${ids}::int4[] AND b.last_at >= ${page_from} AND b.first_at < ${to} AND x.pos IS NOT NULL`;
          const found: Array<{ at: number; series: number; line: unknown }> = [];
          for (const r of rows) decodeDetails(r.data, r.count, r.pos).forEach((line, k) => found.push({ at: r.at[k]!.getTime(), series: r.series[k]!, line }));
          return found.sort((a, b) => b.at - a.at || a.series - b.series).slice(0, 100).length;
        }
        const rows = await sql<{ first_at: Date; series: number[]; dir: Buffer; data: Buffer }[]>`
          SELECT first_at, series, dir, data FROM bench_hwm_batches
          WHERE series && ${ids}::int4[] AND last_at >= ${page_from} AND first_at < ${to}`;
        const found: Array<{ at: number; series: number; line: unknown }> = [];
        for (const r of rows) {
          const { scheduled_ms: at } = decodeDirectory(r.first_at.getTime(), r.series.length, r.dir);
          const wanted = r.series.flatMap((s, j) => (ids.includes(s) && at[j]! < to.getTime() ? [j] : []));
          decodeDetails(r.data, r.series.length, wanted).forEach((line, k) => found.push({ at: at[wanted[k]!]!, series: r.series[wanted[k]!]!, line }));
        }
        return found.sort((a, b) => b.at - a.at || a.series - b.series).slice(0, 100).length;
      }],
      // What the verdict job reads to judge a round: each series' check of it (by key today).
      ['rows_round', async () => (await sql`
        SELECT series_id, success FROM checks WHERE series_id = ANY(${ids}::int[]) AND scheduled_at = ${round_at}`).length],
      ['batches_round', async () => {
        if (DIR === 'arrays') return (await sql`
          SELECT u.s, u.ok FROM bench_hwm_batches b CROSS JOIN LATERAL unnest(b.series, b.at_ms, b.success) AS u(s, a, ok)
          WHERE b.series && ${ids}::int4[] AND b.last_at >= ${round_at} AND b.first_at <= ${round_at}
            AND u.s = ANY(${ids}::int4[]) AND b.first_at + u.a * interval '1 millisecond' = ${round_at}`).length;
        const rows = await sql<{ first_at: Date; series: number[]; dir: Buffer }[]>`
          SELECT first_at, series, dir FROM bench_hwm_batches WHERE series && ${ids}::int4[] AND last_at >= ${round_at} AND first_at <= ${round_at}`;
        let n = 0;
        for (const r of rows) {
          const { scheduled_ms: at } = decodeDirectory(r.first_at.getTime(), r.series.length, r.dir);
          r.series.forEach((s, j) => { if (ids.includes(s) && at[j] === round_at.getTime()) n++; });
        }
        return n;
      }],
      ['rows_hour', async () => (await sql`
        SELECT scheduled_at, success, response_ms FROM checks WHERE series_id = ${ids[0]!} AND scheduled_at >= ${hour_from} AND scheduled_at < ${to}`).length],
      ['batches_hour', async () => {
        if (DIR === 'arrays') return (await sql`
          SELECT b.first_at + u.a * interval '1 millisecond' AS scheduled_at, u.ok AS success, u.r AS response_ms
          FROM bench_hwm_batches b CROSS JOIN LATERAL unnest(b.series, b.at_ms, b.success, b.response_ms) AS u(s, a, ok, r)
          WHERE b.series @> ARRAY[${ids[0]!}::int4] AND b.last_at >= ${hour_from} AND b.first_at < ${to} AND u.s = ${ids[0]!}
            AND b.first_at + u.a * interval '1 millisecond' >= ${hour_from} AND b.first_at + u.a * interval '1 millisecond' < ${to}`).length;
        const rows = await sql<{ first_at: Date; series: number[]; dir: Buffer }[]>`
          SELECT first_at, series, dir FROM bench_hwm_batches
          WHERE series @> ARRAY[${ids[0]!}::int4] AND last_at >= ${hour_from} AND first_at < ${to}`;
        let n = 0;
        for (const r of rows) {
          const { scheduled_ms: at, success, response_ms: response } = decodeDirectory(r.first_at.getTime(), r.series.length, r.dir);
          r.series.forEach((s, j) => { if (s === ids[0] && at[j]! >= hour_from.getTime() && at[j]! < to.getTime() && success[j] && response[j] !== null) n++; });
        }
        return n;
      }],
    ];
    for (const [name, read] of i % 2 === 0 ? reads : [...reads].reverse()) {
      const t0 = performance.now();
      const n = await read();
      if (n === 0) throw new Error(`${name} read nothing`);
      times[name].push(performance.now() - t0);
    }
  }
  for (const [name, xs] of Object.entries(times)) {
    figures[`${name}_p50_ms`] = round(quantile(xs, 0.5), 2);
    figures[`${name}_p99_ms`] = round(quantile(xs, 0.99), 2);
  }
  // 4. A node's backlog after an outage, `BACKLOG` rounds of its checks, into rows and into
  // batches (`hwm`, with its second statement): as the outbox releases it (oldest first, 8
  // batches in flight) and, the worst case for the marks, newest round first (every later round
  // is behind its series' mark). Then each stored check is counted once.
  const backlog = (first: number) => {
    const out: Check[][] = [];
    for (let k = first; k < first + BACKLOG; k++) {
      for (let i = 0; i < monitors.length; i += BATCH) {
        out.push(monitors.slice(i, i + BATCH).map((m) => pingCheck(series.get(nodes[0]!)!.get(m)!, m, start + k * 60_000)));
      }
    }
    return out;
  };
  const release = backlog(ROUNDS);
  const reverse = backlog(ROUNDS + BACKLOG).reverse();
  for (const [name, list] of [['release', release], ['reverse', reverse]] as const) {
    const n = list.reduce((x, b) => x + b.length, 0);
    const rows_s = await inFlight(list, rows);
    let slow = 0;
    const hwm_s = await inFlight(list, async (b) => {
      const n_second = await storeMarked('hwm', b); // read before adding: `slow += await …` would add to a stale sum
      slow += n_second;
    });
    figures[`${name}_rows_checks_per_s`] = Math.round(n / rows_s);
    figures[`${name}_hwm_checks_per_s`] = Math.round(n / hwm_s);
    figures[`${name}_hwm_second_statement_share`] = round(slow / n, 3);
  }
  const ids0 = monitors.map((m) => series.get(nodes[0]!)!.get(m)!);
  const visible = await sql<{ first_at: Date; series: number[]; dir: Buffer | null; at_ms: number[] | null; maybe_stored: number[] | null }[]>`
    SELECT first_at, series, dir, at_ms, maybe_stored FROM bench_hwm_batches WHERE series && ${ids0}::int4[] AND last_at >= ${new Date(start + ROUNDS * 60_000)}`;
  const seen = new Set<string>();
  let copies = 0;
  for (const r of visible) {
    const at = scheduledOf(r);
    const dead = new Set(r.maybe_stored ?? []);
    r.series.forEach((s, j) => {
      if (dead.has(j + 1) || at[j]! < start + ROUNDS * 60_000) return;
      copies++;
      seen.add(`${s}/${at[j]}`);
    });
  }
  if (seen.size !== 2 * BACKLOG * monitors.length || copies !== seen.size) {
    throw new Error(`backlog: ${seen.size} checks visible in ${copies} copies, not ${2 * BACKLOG * monitors.length} once each`);
  }
  log(`backlog: ${JSON.stringify(Object.fromEntries(Object.entries(figures).filter(([k]) => /^(release|reverse)_/.test(k))))}`);

  figures.load = { start: load_start.map((x) => round(x, 2)), end: loadavg().map((x) => round(x, 2)) };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} finally {
  clearInterval(keepalive);
  for (const fn of teardowns) await fn();
}
