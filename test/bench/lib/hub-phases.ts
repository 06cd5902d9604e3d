/**
 * Phases and meters of test/bench/hub-bench.ts beyond the probe sweep: the CPU of the Postgres
 * backends serving the scratch database, the simulated nodes' own counters (IPC), every node
 * reconnecting at once, and kill -9 of an instance followed by its restart on the same port.
 */
import type { ChildProcess } from 'node:child_process';
import type { Sql } from '../../../control-plane/src/db/sql.js';
import { cpuMs } from './hub-instances.js';

/** What the simulated nodes count (hub-sim-nodes.ts). */
export interface SimStats {
  welcomed_now: number; failed_attempts: number; dropped_before_welcome: Record<string, number>;
  /** Failed attempts by reason (the error or close code). */
  failures: Record<string, number>;
  /** CPU time the simulator used so far, ms (when it nears the wall time, the simulator is the limit). */
  cpu_ms: number;
}

/** Ask the simulator for its counters. */
export function simStats(sim: ChildProcess): Promise<SimStats> {
  return new Promise((resolve) => {
    const on = (m: { stats?: SimStats }) => {
      if (!m.stats) return;
      sim.off('message', on);
      resolve(m.stats);
    };
    sim.on('message', on);
    sim.send({ cmd: 'stats' });
  });
}

/**
 * CPU used so far by the Postgres backends connected to `database` (pg_stat_activity), per pid,
 * ms. Other databases' backends (other work on the same server) are not counted; nor are the
 * server's shared processes (WAL writer, checkpointer).
 */
export async function pgBackendsCpu(sql: Sql, database: string): Promise<Map<number, number>> {
  const rows = await sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = ${database} AND pid <> pg_backend_pid()`;
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = await cpuMs(pid);
    if (Number.isFinite(ms)) out.set(pid, ms);
  }
  return out;
}

/** A meter of {@link pgBackendsCpu}: CPU ms of those backends since the meter started (backends that exited meanwhile are lost). */
export async function pgCpuMeter(sql: Sql, database: string): Promise<() => Promise<number>> {
  const start = await pgBackendsCpu(sql, database);
  return async () => {
    let total = 0;
    for (const [pid, ms] of await pgBackendsCpu(sql, database)) total += ms - (start.get(pid) ?? 0);
    return total;
  };
}

/**
 * Transactions committed or rolled back in `database` so far (pg_stat_database; every statement
 * outside a transaction block is one): per probe group, the database round trips it cost.
 * Backends report their counts at least every second or so, so read it over several seconds.
 */
export async function pgTransactions(sql: Sql, database: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT (xact_commit + xact_rollback)::float8 AS n FROM pg_stat_database WHERE datname = ${database}`;
  return row?.n ?? Number.NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Nodes the database shows online (and on `instance_id` when given). */
async function onlineCount(sql: Sql, instance_id?: string): Promise<number> {
  const [row] = instance_id
    ? await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM nodes WHERE status = 'online' AND instance_id = ${instance_id}`
    : await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`;
  return row!.n;
}

/**
 * Wait until all `n` simulated nodes hold a welcomed link and the database shows them online
 * (polled every 100 ms, at most `deadline_ms`). @returns ms since `t0`, or null at the deadline
 */
export async function untilAllOnline(sql: Sql, sim: ChildProcess, n: number, t0: number, deadline_ms: number, instance_id?: string): Promise<number | null> {
  let logged = performance.now();
  const sim_cpu0 = (await simStats(sim)).cpu_ms;
  while (performance.now() - t0 < deadline_ms) {
    const welcomed = (await simStats(sim)).welcomed_now;
    const online = await onlineCount(sql, instance_id);
    if (welcomed >= n && online >= n) return performance.now() - t0;
    if (performance.now() - logged > 5000) {
      logged = performance.now();
      const sim_cpu_s = ((await simStats(sim)).cpu_ms - sim_cpu0) / 1000;
      process.stderr.write(`  ${((logged - t0) / 1000).toFixed(1)} s: ${welcomed} welcomed, ${online} online in the database; simulator CPU ${sim_cpu_s.toFixed(1)} s\n`);
    }
    await sleep(100);
  }
  const s = await simStats(sim);
  process.stderr.write(`not all online: ${s.welcomed_now} of ${n} nodes welcomed, ${await onlineCount(sql, instance_id)} online in the database\n`);
  return null;
}

/**
 * Every node's link cut at once, each node reconnecting on the agent's schedule (0.1-1 s after a
 * stable link went down), or with `at_once` all with no delay. @returns ms until all are back, or null
 */
export async function herd(sql: Sql, sim: ChildProcess, n: number, deadline_ms: number, at_once = false): Promise<number | null> {
  const cut = new Promise<void>((resolve) => {
    const on = (m: { herd?: boolean }) => {
      if (!m.herd) return;
      sim.off('message', on);
      resolve();
    };
    sim.on('message', on);
  });
  const t0 = performance.now();
  sim.send({ cmd: 'herd', at_once });
  await cut;
  return untilAllOnline(sql, sim, n, t0, deadline_ms);
}
