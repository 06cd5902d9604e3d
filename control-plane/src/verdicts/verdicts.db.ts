import type { SqlExecutor } from '../contracts.js';

/** A `verdict_orders` row (0073_verdicts_attestation.sql); `pdf` is read only by {@link orderPdf}. */
export interface VerdictOrderRow {
  id: string;
  user_id: string;
  template: string;
  target: string;
  time_window_start: Date;
  time_window_end: Date;
  notes: string;
  notify_email: string;
  webhook_url: string | null;
  webhook_secret_sealed: string | null;
  monitor_ids: string[];
  idempotency_key: string | null;
  request_hash: string;
  payment_method: 'charge' | 'report_credit';
  price_cny: string;
  entitlement_id: string | null;
  charge_id: string | null;
  pay_url: string;
  pay_expires_at: Date | null;
  status: 'created' | 'paid' | 'generating' | 'completed' | 'failed';
  attempts: number;
  next_attempt_at: Date | null;
  claimed_until: Date | null;
  error_detail: string | null;
  content_hash: string | null;
  key_id: string | null;
  signed_at: Date | null;
  paid_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
}

const COLUMNS = (ex: SqlExecutor) => ex`id, user_id, template, target, time_window_start, time_window_end, notes, notify_email, webhook_url, webhook_secret_sealed,
  monitor_ids, idempotency_key, request_hash, payment_method, price_cny::text AS price_cny, entitlement_id, charge_id, pay_url, pay_expires_at, status, attempts,
  next_attempt_at, claimed_until, error_detail, content_hash, key_id, signed_at, paid_at, completed_at, created_at`;

export type NewVerdictOrder = Pick<VerdictOrderRow, 'id' | 'user_id' | 'template' | 'target' | 'time_window_start' | 'time_window_end' | 'notes' | 'notify_email'
  | 'webhook_url' | 'webhook_secret_sealed' | 'monitor_ids' | 'idempotency_key' | 'request_hash' | 'payment_method' | 'entitlement_id'> & { price_cny: number; paid: boolean };

/**
 * Insert an order; a paid one (report credit) is due for generation at once. @returns its row, or
 * null when the caller already has an order with this idempotency key (nothing written).
 */
export async function insertOrder(ex: SqlExecutor, o: NewVerdictOrder): Promise<VerdictOrderRow | null> {
  const [row] = await ex<VerdictOrderRow[]>`
    INSERT INTO verdict_orders (id, user_id, template, target, time_window_start, time_window_end, notes, notify_email, webhook_url, webhook_secret_sealed,
      monitor_ids, idempotency_key, request_hash, payment_method, price_cny, entitlement_id, status, paid_at, next_attempt_at)
    VALUES (${o.id}, ${o.user_id}, ${o.template}, ${o.target}, ${o.time_window_start}, ${o.time_window_end}, ${o.notes}, ${o.notify_email}, ${o.webhook_url},
      ${o.webhook_secret_sealed}, ${o.monitor_ids}::text[], ${o.idempotency_key}, ${o.request_hash}, ${o.payment_method}, ${o.price_cny}, ${o.entitlement_id},
      ${o.paid ? 'paid' : 'created'}, ${o.paid ? ex`now()` : null}, ${o.paid ? ex`now()` : null})
    ON CONFLICT (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING ${COLUMNS(ex)}`;
  return row ?? null;
}

/** The caller's order with idempotency key `key`, or null. */
export async function orderByIdempotencyKey(ex: SqlExecutor, user_id: string, key: string): Promise<VerdictOrderRow | null> {
  const [row] = await ex<VerdictOrderRow[]>`SELECT ${COLUMNS(ex)} FROM verdict_orders WHERE user_id = ${user_id} AND idempotency_key = ${key}`;
  return row ?? null;
}

/** One order by id, or null. */
export async function findOrder(ex: SqlExecutor, id: string): Promise<VerdictOrderRow | null> {
  const [row] = await ex<VerdictOrderRow[]>`SELECT ${COLUMNS(ex)} FROM verdict_orders WHERE id = ${id}`;
  return row ?? null;
}

/** The user's orders, newest first, and how many there are. */
export async function listOrders(ex: SqlExecutor, user_id: string, limit: number, offset: number): Promise<{ rows: VerdictOrderRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    ex<VerdictOrderRow[]>`SELECT ${COLUMNS(ex)} FROM verdict_orders WHERE user_id = ${user_id} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    ex<{ n: number }[]>`SELECT count(*)::int AS n FROM verdict_orders WHERE user_id = ${user_id}`,
  ]);
  return { rows, total: count!.n };
}

/** Record the charge of a `charge` order. */
export async function setOrderCharge(ex: SqlExecutor, id: string, charge_id: string, pay_url: string, pay_expires_at: Date): Promise<void> {
  await ex`UPDATE verdict_orders SET charge_id = ${charge_id}, pay_url = ${pay_url}, pay_expires_at = ${pay_expires_at} WHERE id = ${id}`;
}

/** created → paid, due for generation now (the charge's paid handler). @returns whether it moved */
export async function markOrderPaid(ex: SqlExecutor, id: string, charge_id: string): Promise<boolean> {
  const rows = await ex`UPDATE verdict_orders SET status = 'paid', paid_at = now(), next_attempt_at = now()
    WHERE id = ${id} AND status = 'created' AND (charge_id = ${charge_id} OR charge_id IS NULL) RETURNING id`;
  return rows.length > 0;
}

/**
 * Claim up to `limit` orders due for generation (paid, or generating whose claim lapsed) for
 * `lease_ms`, skipping rows another instance holds. @returns the claimed rows (attempts counted)
 */
export async function claimDueOrders(ex: SqlExecutor, limit: number, lease_ms: number): Promise<VerdictOrderRow[]> {
  return ex<VerdictOrderRow[]>`
    UPDATE verdict_orders SET status = 'generating', attempts = attempts + 1, claimed_until = now() + ${lease_ms} * interval '1 millisecond'
    WHERE id IN (
      SELECT id FROM verdict_orders
      WHERE (status = 'paid' AND next_attempt_at <= now()) OR (status = 'generating' AND claimed_until < now() AND next_attempt_at <= now())
      ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${COLUMNS(ex)}`;
}

/** generating → completed with the signed PDF. */
export async function completeOrder(ex: SqlExecutor, id: string, r: { pdf: Buffer; content_hash: string; key_id: string; signed_at: Date }): Promise<boolean> {
  const rows = await ex`UPDATE verdict_orders SET status = 'completed', pdf = ${r.pdf}, content_hash = ${r.content_hash}, key_id = ${r.key_id}, signed_at = ${r.signed_at},
    completed_at = now(), claimed_until = NULL, next_attempt_at = NULL, error_detail = NULL WHERE id = ${id} AND status = 'generating' RETURNING id`;
  return rows.length > 0;
}

/** A failed attempt: retried at `retry_at`, or failed for good when null. */
export async function failOrderAttempt(ex: SqlExecutor, id: string, error: string, retry_at: Date | null): Promise<void> {
  await ex`UPDATE verdict_orders SET status = ${retry_at ? 'paid' : 'failed'}, error_detail = ${error.slice(0, 1000)}, claimed_until = NULL, next_attempt_at = ${retry_at}
    WHERE id = ${id} AND status = 'generating'`;
}

/** The signed PDF of a completed order, or null. */
export async function orderPdf(ex: SqlExecutor, id: string): Promise<Buffer | null> {
  const [row] = await ex<{ pdf: Buffer | null }[]>`SELECT pdf FROM verdict_orders WHERE id = ${id} AND status = 'completed'`;
  return row?.pdf ?? null;
}

/** The caller's monitors whose target is `target` (or whose URL's host is), oldest first. */
export async function monitorsOfTarget(ex: SqlExecutor, user_id: string, target: string): Promise<Array<{ id: string; name: string; type: string; target: string; created_at: Date }>> {
  return ex`SELECT id, name, type, target, created_at FROM monitors
    WHERE user_id = ${user_id} AND (lower(target) = lower(${target}) OR lower(substring(target from '^[a-z][a-z0-9+.-]*://([^/:?#]+)')) = lower(${target}))
    ORDER BY created_at, id`;
}

/** One result of an ad-hoc probe of a report's target, with its node's country. */
export interface ProbeObservationRow {
  node_id: string;
  country: string | null;
  probe_type: string;
  success: boolean;
  output: Record<string, unknown> | null;
}

/**
 * Results of the user's ad-hoc probes of `target` (as probedInWindow matches it) whose tasks were
 * created in [from, to), oldest first, at most `limit`.
 */
export async function probeResultsInWindow(ex: SqlExecutor, user_id: string, target: string, from: Date, to: Date, limit: number): Promise<ProbeObservationRow[]> {
  return ex<ProbeObservationRow[]>`
    SELECT t.node_id, n.country, t.probe_type, r.success, r.output
    FROM probe_tasks t JOIN probe_results r ON r.task_id = t.id LEFT JOIN nodes n ON n.id = t.node_id
    WHERE t.requester_user_id = ${user_id} AND lower(t.target) = lower(${target}) AND t.created_at >= ${from} AND t.created_at < ${to}
    ORDER BY t.created_at, t.id LIMIT ${limit}`;
}

/** Whether the user ran an ad-hoc probe of `target` in [from, to). */
export async function probedInWindow(ex: SqlExecutor, user_id: string, target: string, from: Date, to: Date): Promise<boolean> {
  const rows = await ex`SELECT 1 FROM probe_tasks WHERE requester_user_id = ${user_id} AND lower(target) = lower(${target})
    AND created_at >= ${from} AND created_at < ${to} LIMIT 1`;
  return rows.length > 0;
}
