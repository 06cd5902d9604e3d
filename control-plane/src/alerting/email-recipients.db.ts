import type { AlertEmailRecipientState } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/** An `alert_email_recipients` row (0039_alert_email_recipients.sql) as the API and senders read it. */
export interface RecipientRow {
  address: string;
  state: AlertEmailRecipientState;
  opt_in_sent_at: Date | null;
  confirmed_at: Date | null;
  unsubscribed_at: Date | null;
}

/** The account's own address and whether it is verified (it needs no opt-in then). */
export interface RecipientOwner {
  email: string;
  email_verified: boolean;
}

/** A new opt-in link of a pending recipient: the sha256 of its token and when it expires. */
export interface OptInLink {
  address: string;
  hash: string;
  expires_at: Date;
}

/**
 * The account's address and its recipient rows among `addresses` (lower-cased), in one statement.
 * @returns null when the account does not exist
 */
export async function recipientsOf(sql: SqlExecutor, user_id: string, addresses: string[]): Promise<{ owner: RecipientOwner; rows: RecipientRow[] } | null> {
  const found = await sql<Array<{ owner_email: string; owner_verified: boolean } & { [K in keyof RecipientRow]: RecipientRow[K] | null }>>`
    SELECT u.email AS owner_email, u.email_verified AS owner_verified,
      r.address, r.state, r.opt_in_sent_at, r.confirmed_at, r.unsubscribed_at
    FROM users u
    LEFT JOIN alert_email_recipients r ON r.user_id = u.id AND r.address = ANY(${addresses}::text[])
    WHERE u.id = ${user_id}`;
  if (found.length === 0) return null;
  const rows = found.filter((f) => f.address !== null) as unknown as RecipientRow[];
  return { owner: { email: found[0]!.owner_email, email_verified: found[0]!.owner_verified }, rows };
}

/**
 * Add recipients the account has no row for, inside the caller's transaction: `confirmed` (the
 * account's own verified address) and `pending` with their opt-in links. An address that got a
 * row meanwhile (a concurrent request) is left as it is.
 * @returns the pending addresses inserted now: only those get an opt-in e-mail
 */
export async function insertRecipients(tx: SqlExecutor, user_id: string, confirmed: string[], pending: OptInLink[]): Promise<Set<string>> {
  const rows = [
    ...confirmed.map((address) => ({ address, state: 'confirmed', hash: null, expires_at: null, sent: false })),
    ...pending.map((p) => ({ address: p.address, state: 'pending', hash: p.hash, expires_at: p.expires_at.toISOString(), sent: true })),
  ];
  if (rows.length === 0) return new Set();
  const inserted = await tx<{ address: string; state: string }[]>`
    INSERT INTO alert_email_recipients (user_id, address, state, opt_in_hash, opt_in_expires_at, opt_in_sent_at, confirmed_at)
    SELECT ${user_id}, r.address, r.state, r.hash, r.expires_at,
      CASE WHEN r.sent THEN now() END, CASE WHEN r.state = 'confirmed' THEN now() END
    FROM jsonb_to_recordset(${tx.json(rows as never)}) AS r(address text, state text, hash text, expires_at timestamptz, sent boolean)
    ON CONFLICT (user_id, address) DO NOTHING
    RETURNING address, state`;
  return new Set(inserted.filter((r) => r.state === 'pending').map((r) => r.address));
}

/**
 * Give a pending recipient a new opt-in link (creating its row when a channel made before
 * recipients were kept has none), unless its last opt-in e-mail was queued less than
 * `min_interval_s` ago. The earlier link stops working.
 * @returns `ok`, or why not: `confirmed` / `unsubscribed` (not pending), `too_soon` with seconds to wait
 */
export async function renewOptIn(tx: SqlExecutor, user_id: string, link: OptInLink, min_interval_s: number): Promise<
  { ok: true } | { ok: false; reason: 'confirmed' | 'unsubscribed' } | { ok: false; reason: 'too_soon'; retry_after_s: number }
> {
  const [row] = await tx`
    INSERT INTO alert_email_recipients AS r (user_id, address, state, opt_in_hash, opt_in_expires_at, opt_in_sent_at)
    VALUES (${user_id}, ${link.address}, 'pending', ${link.hash}, ${link.expires_at}, now())
    ON CONFLICT (user_id, address) DO UPDATE SET
      opt_in_hash = EXCLUDED.opt_in_hash, opt_in_expires_at = EXCLUDED.opt_in_expires_at,
      opt_in_sent_at = now(), updated_at = now()
    WHERE r.state = 'pending' AND (r.opt_in_sent_at IS NULL OR r.opt_in_sent_at <= now() - make_interval(secs => ${min_interval_s}))
    RETURNING 1`;
  if (row) return { ok: true };
  const [current] = await tx<{ state: AlertEmailRecipientState; wait_s: number | null }[]>`
    SELECT state, ceil(extract(epoch FROM opt_in_sent_at + make_interval(secs => ${min_interval_s}) - now()))::int AS wait_s
    FROM alert_email_recipients WHERE user_id = ${user_id} AND address = ${link.address}`;
  if (current && current.state !== 'pending') return { ok: false, reason: current.state };
  return { ok: false, reason: 'too_soon', retry_after_s: Math.max(1, current?.wait_s ?? 1) };
}

/** A recipient found by its opt-in link. */
export interface OptInHolder {
  user_id: string;
  address: string;
  state: AlertEmailRecipientState;
  expired: boolean;
}

/** The recipient whose live opt-in link has token hash `hash`, or null (unknown or replaced by a newer link). */
export async function findByOptInHash(sql: Sql, hash: string): Promise<OptInHolder | null> {
  const [row] = await sql<OptInHolder[]>`
    SELECT user_id, address, state, opt_in_expires_at <= now() AS expired
    FROM alert_email_recipients WHERE opt_in_hash = ${hash}`;
  return row ?? null;
}

/**
 * Confirm the recipient of an unexpired opt-in link (again is harmless). An unsubscribe clears
 * the link, so it never undoes one. @returns the recipient, or null when the link is unknown or expired
 */
export async function confirmByOptInHash(sql: Sql, hash: string): Promise<{ user_id: string; address: string } | null> {
  const [row] = await sql<{ user_id: string; address: string }[]>`
    UPDATE alert_email_recipients SET
      state = 'confirmed', confirmed_at = coalesce(confirmed_at, now()), updated_at = now()
    WHERE opt_in_hash = ${hash} AND opt_in_expires_at > now() AND state <> 'unsubscribed'
    RETURNING user_id, address`;
  return row ?? null;
}

/** The stored state of one recipient, or null without a row. */
export async function recipientState(sql: Sql, user_id: string, address: string): Promise<AlertEmailRecipientState | null> {
  const [row] = await sql<{ state: AlertEmailRecipientState }[]>`SELECT state FROM alert_email_recipients WHERE user_id = ${user_id} AND address = ${address}`;
  return row?.state ?? null;
}

/**
 * Unsubscribe `address` from the account's alert e-mails (a row is made when there was none:
 * the account's own address needs none to receive). Its opt-in link stops working.
 * @returns false when the account no longer exists
 */
export async function unsubscribeRecipient(sql: Sql, user_id: string, address: string): Promise<boolean> {
  const rows = await sql`
    INSERT INTO alert_email_recipients AS r (user_id, address, state, unsubscribed_at)
    SELECT id, ${address}, 'unsubscribed', now() FROM users WHERE id = ${user_id}
    ON CONFLICT (user_id, address) DO UPDATE SET
      state = 'unsubscribed', unsubscribed_at = coalesce(r.unsubscribed_at, now()),
      opt_in_hash = NULL, opt_in_expires_at = NULL, updated_at = now()
    RETURNING 1`;
  return rows.length > 0;
}
