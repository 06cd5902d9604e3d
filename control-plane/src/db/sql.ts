import postgres from 'postgres';
import { createLogger, type Logger } from '../log.js';
import { serializeArray } from './array-text.js';
import { parseInt4Array } from './int4-array.js';
import { parseTextArray } from './text-array.js';
import { databaseTarget } from './url.js';

/** The one `postgres` client of a process (porsager/postgres README: one `sql` instance). */
export type Sql = postgres.Sql<Record<string, never>>;

/**
 * Reconnect delay after a failed connection attempt, seconds: 0.1 s doubling up to 2 s. The
 * `postgres` default (3^n / 100 s, up to 20 s, with a retry counter shared by the whole pool) left
 * the pool idle for 10-20 s after a 5 s database restart (test/faults scenario 4).
 */
export const RECONNECT_BACKOFF_S = (retries: number): number => Math.min(0.1 * 2 ** retries, 2);

/**
 * Queries one connection takes before the pool stops pipelining onto it (the `postgres` default,
 * stated so the transaction-pipeline test fills exactly this many).
 */
export const MAX_PIPELINE = 100;

/** Postgres's type oids of int4[] and text[] (pg_type `_int4`, `_text`). */
const INT4_ARRAY_OID = 1007;
const TEXT_ARRAY_OID = 1009;

let serverWarnings = 0;

/** Server messages of severity WARNING seen by every client of this process since it started. */
export function serverWarningCount(): number {
  return serverWarnings;
}

/**
 * Log a server NoticeResponse. WARNING-level messages mean a statement did not do what its caller
 * assumed: 25001 "there is already a transaction in progress" is a BEGIN sent on a connection that
 * another transaction left open, 25P01 a COMMIT outside any transaction. They are logged at error
 * level and counted; NOTICE, INFO and below (IF EXISTS / IF NOT EXISTS skips) at debug.
 */
function logNotice(log: Pick<Logger, 'error' | 'debug'>, notice: postgres.Notice): void {
  const { severity, severity_local, code, message, detail, hint, where } = notice as Record<string, string | undefined>;
  const level = severity ?? severity_local;
  const fields = { notice: { severity: level, code, message, detail, hint, where } };
  if (level === 'WARNING') {
    serverWarnings += 1;
    log.error(fields, `database warning ${code}: ${message}`);
  } else {
    log.debug(fields, `database notice: ${message}`);
  }
}

/**
 * Connect to Postgres at `url` (a Unix socket directory may be named the libpq way, by `?host=` or a
 * percent-encoded host: {@link databaseTarget}), with JIT compilation off for the session (`jit = off`, sent at
 * connection start). Timestamps come back as Date objects, bigint columns as numbers
 * when they fit (counts, ids we own never exceed 2^53), int4[] columns as arrays of numbers (NULL
 * elements null) read by {@link parseInt4Array}, text[] columns as arrays of strings (NULL elements
 * null) read by {@link parseTextArray}. Reconnects after
 * {@link RECONNECT_BACKOFF_S} when the server goes away. Server notices go to `log`
 * ({@link logNotice}: warnings at error level).
 *
 * Every transaction uses `sql.begin`, whose reservation of the connection the patched `postgres`
 * makes hold even when BEGIN is the query that fills the pipeline (control-plane/patches).
 * @param max pool size
 * @param log logger for server notices; a plain `info` logger when not given
 * @param opts.generic_plans every statement of this client runs on one generic plan per
 *   connection (`plan_cache_mode = force_generic_plan`, sent at connection start) instead of
 *   Postgres choosing per statement: for statements whose custom plans it keeps re-making
 *   (see {@link genericPlanClient})
 */
export function connect(url: string, max = 10, log: Pick<Logger, 'error' | 'debug'> = createLogger('info').child({ module: 'db' }), opts: { generic_plans?: boolean } = {}): Sql {
  const pipeline = { max_pipeline: MAX_PIPELINE }; // read by `postgres`, missing from its types
  const target = databaseTarget(url);
  return postgres(target.url, {
    ...(target.host === undefined ? {} : { host: target.host }),
    ...(target.port === undefined ? {} : { port: target.port }),
    max,
    ...pipeline,
    // JIT off: it compiled short statements whose row estimates crossed jit_above_cost (the
    // verdict job's claim: 82 functions, 29 ms, on every call) and no statement here is the long
    // analytic query it pays off for (docs/benchmarks.md "Check ingest").
    connection: { jit: 'off', ...(opts.generic_plans ? { plan_cache_mode: 'force_generic_plan' } : {}) },
    backoff: RECONNECT_BACKOFF_S,
    onnotice: (notice) => logNotice(log, notice),
    // int4[] (oid 1007) by db/int4-array.ts, text[] (1009) by db/text-array.ts: given a parser AND
    // a serializer for an array oid, `postgres` keeps them instead of its generic array pair.
    types: {
      bigint: postgres.BigInt,
      int4_array: { to: INT4_ARRAY_OID, from: [INT4_ARRAY_OID], parse: parseInt4Array, serialize: (xs: unknown) => serializeArray(xs, null) },
      text_array: { to: TEXT_ARRAY_OID, from: [TEXT_ARRAY_OID], parse: parseTextArray, serialize: (xs: unknown) => serializeArray(xs, null) },
    },
    transform: { undefined: null },
  }) as unknown as Sql;
}

/**
 * Connections of the {@link genericPlanClient}: its statements take about a millisecond each (a
 * node pick with the insert of a small probe's tasks, probes/select.ts; an uptime answer), so four
 * serve several hundred a second; past that `postgres` pipelines statements onto them.
 */
export const GENERIC_POOL_SIZE = 4;

/**
 * The client for statements Postgres would plan anew on every call, which runs generic plans
 * only: automatic node picks (probes/node-selection.db.ts; a small probe's task insert rides in
 * the same statement), uptime answers (checks/uptime.db.ts) and a monitor's stats
 * (checks/stats.db.ts monitorStatsCells).
 * Postgres plans a prepared statement anew on every call while its estimate for the generic plan
 * is above that of a plan for the given values. The pick statement (a skip scan over countries and
 * a window per country) was planned on every call (0.4-0.8 ms of the database's CPU, as much as
 * running it); its generic plan is the same plan, run at once. The uptime statement (a union over
 * partitioned rollups and rounds, the state log's window functions) was too: about 0.8 ms of
 * the database's CPU of its 1.3 ms per answer; its generic plan prunes partitions when it starts
 * (docs/benchmarks.md "Monitor list, uptime and stats latency"). The stats statement, whose raw
 * part inlines check_entries(), cost the database 4.7 ms of CPU per read planned per call, 2.0 ms
 * on its generic plan (3.6 ms either way before the function was inlined; the same, fourteenth
 * round).
 */
export function genericPlanClient(url: string, log: Pick<Logger, 'error' | 'debug'>): Sql {
  return connect(url, GENERIC_POOL_SIZE, log, { generic_plans: true });
}
