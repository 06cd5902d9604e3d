import type { Sql } from '../db/sql.js';
import type { SqlExecutor } from '../contracts.js';

/** Stored state of a delivery (0015_deliveries.sql); `delivering` is derived from a live claim. */
export type DeliveryRowStatus = 'pending' | 'succeeded' | 'failed';

/** A `deliveries` row. `payload` is the channel's message (a webhook event envelope, a rendered e-mail). */
export interface DeliveryRow {
  id: string;
  message_id: string;
  channel: string;
  destination: string;
  user_id: string | null;
  event_type: string;
  payload: unknown;
  status: DeliveryRowStatus;
  attempts: number;
  retry_step: number;
  next_attempt_at: Date;
  claimed_by: string | null;
  claimed_at: Date | null;
  claimed_until: Date | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/** A `delivery_attempts` row: one attempt of the log. */
export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  status_code: number | null;
  latency_ms: number | null;
  response_body: string | null;
  error: string | null;
  outcome: 'succeeded' | 'failed' | 'interrupted';
}

/** A delivery to queue. */
export type NewDelivery = Pick<DeliveryRow, 'id' | 'message_id' | 'channel' | 'destination' | 'user_id' | 'event_type' | 'payload'>;

// Serialises claims of every instance (the per-destination cap counts live claims of all of them).
const CLAIM_LOCK = 7261002;

/**
 * Queue deliveries in one statement (ON CONFLICT DO NOTHING on (channel, destination,
 * message_id): queueing a message twice is a no-op) and NOTIFY `notify_channel`, which Postgres
 * delivers when the caller's transaction commits.
 * @returns how many rows were inserted now
 */
export async function insertDeliveries(ex: SqlExecutor, rows: NewDelivery[], notify_channel: string): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await ex`
    INSERT INTO deliveries (id, message_id, channel, destination, user_id, event_type, payload)
    SELECT r.id, r.message_id, r.channel, r.destination, r.user_id, r.event_type, r.payload
    FROM jsonb_to_recordset(${ex.json(rows as never)}) AS r(
      id text, message_id text, channel text, destination text, user_id text, event_type text, payload jsonb)
    ON CONFLICT (channel, destination, message_id) DO NOTHING
    RETURNING id`;
  if (inserted.length > 0) await ex`SELECT pg_notify(${notify_channel}, '')`;
  return inserted.length;
}

/** A claimed delivery; `interrupted_by` names the instance whose earlier claim never finished. */
export type ClaimedDelivery = DeliveryRow & { interrupted_by: string | null };

/**
 * Claim up to `limit` due deliveries for `instance_id` (FOR UPDATE SKIP LOCKED, under a
 * transaction-level advisory lock so claims of all instances are serialised): pending, due,
 * not under a live lease, of a channel in `channels`, and at most `destination_cap` live claims
 * per (channel, destination) counting every instance's. Each gets a lease of `lease_ms`. A row
 * whose previous claim never finished (its instance died or stopped mid-send) counts that
 * attempt and logs it as `interrupted`.
 * Destinations already at their cap are left out before the oldest `scan` due rows are taken, so
 * a backlog for one slow receiver never holds up the others; the partition sort uses the C
 * collation (ids are ASCII) to stay cheap.
 */
export async function claimDue(sql: Sql, o: {
  instance_id: string; channels: string[]; limit: number; lease_ms: number; destination_cap: number; scan: number;
}): Promise<ClaimedDelivery[]> {
  if (o.limit <= 0 || o.channels.length === 0) return [];
  // The lock and the claim are pipelined (one round trip): the claim runs once the lock is held.
  const [, claimed] = await sql.begin((tx) => [tx`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`, tx<ClaimedDelivery[]>`
      WITH inflight AS (
        SELECT channel, destination, count(*)::int AS n FROM deliveries
        WHERE status = 'pending' AND claimed_until > now() GROUP BY channel, destination
      ), due AS (
        SELECT d.id, d.channel, d.destination, d.next_attempt_at FROM deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.claimed_until IS NULL OR d.claimed_until <= now())
          AND d.channel IN ${tx(o.channels)}
          AND NOT EXISTS (SELECT 1 FROM inflight i WHERE i.channel = d.channel AND i.destination = d.destination AND i.n >= ${o.destination_cap})
        ORDER BY d.next_attempt_at LIMIT ${o.scan}
      ), ranked AS (
        SELECT due.id, due.next_attempt_at,
          row_number() OVER (
            PARTITION BY due.channel COLLATE "C", due.destination COLLATE "C" ORDER BY due.next_attempt_at, due.id COLLATE "C"
          ) + coalesce(i.n, 0) AS slot
        FROM due LEFT JOIN inflight i ON i.channel = due.channel AND i.destination = due.destination
      ), picked AS (
        SELECT d.id, d.claimed_by AS prev_by, d.claimed_at AS prev_at FROM deliveries d
        WHERE d.id = ANY(ARRAY(SELECT id FROM ranked WHERE slot <= ${o.destination_cap} ORDER BY next_attempt_at LIMIT ${o.limit}))
        FOR UPDATE OF d SKIP LOCKED
      ), claimed AS (
        UPDATE deliveries d SET claimed_by = ${o.instance_id}, claimed_at = now(),
          claimed_until = now() + make_interval(secs => ${o.lease_ms / 1000}),
          attempts = d.attempts + CASE WHEN p.prev_by IS NOT NULL THEN 1 ELSE 0 END
        FROM picked p WHERE d.id = p.id
        RETURNING d.*, p.prev_by AS interrupted_by, p.prev_at AS interrupted_at
      ), logged AS (
        INSERT INTO delivery_attempts (delivery_id, attempt, started_at, error, outcome)
        SELECT id, attempts, coalesce(interrupted_at, now()),
          'interrupted: instance ' || interrupted_by || ' stopped before the attempt finished', 'interrupted'
        FROM claimed WHERE interrupted_by IS NOT NULL
        ON CONFLICT DO NOTHING
      )
      SELECT * FROM claimed ORDER BY next_attempt_at`]);
  return claimed as unknown as ClaimedDelivery[];
}

/** The outcome of one attempt, as the worker records it. */
export interface AttemptRecord {
  id: string;
  instance_id: string;
  /** This attempt's number (the claimed row's `attempts` + 1). */
  attempt: number;
  started_at: Date;
  status_code: number | null;
  latency_ms: number | null;
  response_body: string | null;
  error: string | null;
  outcome: 'succeeded' | 'failed';
  /** For a failure: ms until the next attempt, or null when the delivery has failed for good. */
  retry_in_ms: number | null;
}

/**
 * Log attempts and move their deliveries on, all in one statement: each succeeded; failed for
 * good; or pending again at now + `retry_in_ms` with the next retry step. Claims are cleared. A
 * row is only changed while its `instance_id` still holds the claim (after a lost lease another
 * instance owns it); the attempt is logged either way.
 * @returns the ids of the delivery rows updated
 */
export async function recordAttempts(sql: Sql, records: AttemptRecord[]): Promise<string[]> {
  if (records.length === 0) return [];
  const rows = records.map((r) => ({
    ...r,
    status: r.outcome === 'succeeded' ? 'succeeded' : r.retry_in_ms === null ? 'failed' : 'pending',
    last_error: r.outcome === 'succeeded' ? null : r.error ?? (r.status_code !== null ? `HTTP ${r.status_code}` : 'failed'),
    retry_s: (r.retry_in_ms ?? 0) / 1000,
  }));
  const updated = await sql<{ id: string }[]>`
    WITH r AS (
      SELECT * FROM jsonb_to_recordset(${sql.json(rows as never)}) AS r(
        id text, instance_id text, attempt int, started_at timestamptz, status_code int, latency_ms int,
        response_body text, error text, outcome text, status text, last_error text, retry_s float8)
    ), logged AS (
      INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, response_body, error, outcome)
      SELECT id, attempt, started_at, status_code, latency_ms, response_body, error, outcome FROM r
      ON CONFLICT DO NOTHING
    )
    UPDATE deliveries d SET status = r.status, attempts = greatest(d.attempts, r.attempt),
      retry_step = d.retry_step + CASE WHEN r.status = 'pending' THEN 1 ELSE 0 END,
      next_attempt_at = now() + make_interval(secs => r.retry_s),
      claimed_by = NULL, claimed_at = NULL, claimed_until = NULL, last_error = r.last_error,
      finished_at = CASE WHEN r.status = 'pending' THEN NULL ELSE now() END
    FROM r WHERE d.id = r.id AND d.claimed_by = r.instance_id
    RETURNING d.id`;
  return updated.map((u) => u.id);
}

/**
 * Give up this instance's live claims so they are due again at once (start-up after a crash of
 * an instance with the same id; shutdown with attempts cut short). `claimed_by` stays, so the
 * next claim logs those attempts as interrupted. @returns how many
 */
export async function releaseClaims(sql: Sql, instance_id: string, ids?: string[]): Promise<number> {
  const rows = await sql`
    UPDATE deliveries SET claimed_until = now()
    WHERE claimed_by = ${instance_id} AND status = 'pending' AND claimed_until > now()
      ${ids ? sql`AND id IN ${sql(ids)}` : sql``}
    RETURNING id`;
  return rows.length;
}

/** Delete finished deliveries (and their attempt logs) older than `days`, at most `batch` per call. @returns how many */
export async function pruneFinished(sql: Sql, days: number, batch = 5000): Promise<number> {
  const rows = await sql`
    DELETE FROM deliveries WHERE id IN (
      SELECT id FROM deliveries WHERE finished_at < now() - make_interval(days => ${days}) LIMIT ${batch})
    RETURNING id`;
  return rows.length;
}
