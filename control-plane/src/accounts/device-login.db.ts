import type { Sql } from '../db/sql.js';

/** A pending QR-code login as the approving device sees it. */
export interface DeviceRequestRow {
  id: string;
  created_at: Date;
  expires_at: Date;
  requester_ip: string | null;
  user_agent: string | null;
}

/**
 * Store a new QR-code login, pending for `ttl_s` seconds; rows that expired more than a day ago
 * are deleted on the way. @returns false when the user code hash is taken (draw another code)
 */
export async function insertDeviceAuthorization(sql: Sql, d: {
  id: string; device_code_hash: string; user_code_hash: string; requester_ip: string | null; user_agent: string | null; ttl_s: number; interval_s: number;
}): Promise<boolean> {
  await sql`DELETE FROM device_authorizations WHERE expires_at < now() - interval '1 day'`;
  const rows = await sql`
    INSERT INTO device_authorizations (id, device_code_hash, user_code_hash, requester_ip, user_agent, interval_s, expires_at)
    VALUES (${d.id}, ${d.device_code_hash}, ${d.user_code_hash}, ${d.requester_ip}, ${d.user_agent}, ${d.interval_s}, now() + make_interval(secs => ${d.ttl_s}))
    ON CONFLICT (user_code_hash) DO NOTHING RETURNING 1`;
  return rows.length > 0;
}

/** What a poll found (RFC 8628 3.5). */
export type DevicePoll =
  | { state: 'approved'; user_id: string }
  | { state: 'pending'; slow_down: boolean; interval_s: number; expires_in_s: number }
  | { state: 'denied' | 'expired' | 'used' | 'unknown' };

/**
 * One poll of the device code with this hash, in one locked transaction: an approved login
 * turns `used` (the token response is handed out once); a pending one records the poll, and a
 * poll sooner than `interval_s` after the previous one answers `slow_down` and adds `step_s`
 * to the interval. An expired request answers `expired` whatever its state but `used`.
 */
export async function pollDeviceAuthorization(sql: Sql, device_code_hash: string, step_s: number): Promise<DevicePoll> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ id: string; status: string; user_id: string | null; expired: boolean; too_soon: boolean; interval_s: number; expires_in_s: number }[]>`
      SELECT id, status, user_id, expires_at <= now() AS expired, interval_s,
        coalesce(last_polled_at > now() - make_interval(secs => interval_s), false) AS too_soon,
        greatest(0, floor(extract(epoch FROM expires_at - now())))::int AS expires_in_s
      FROM device_authorizations WHERE device_code_hash = ${device_code_hash} FOR UPDATE`;
    if (!row) return { state: 'unknown' };
    if (row.status === 'used') return { state: 'used' };
    if (row.expired) return { state: 'expired' };
    if (row.status === 'denied') return { state: 'denied' };
    if (row.status === 'approved') {
      await tx`UPDATE device_authorizations SET status = 'used', last_polled_at = now() WHERE id = ${row.id}`;
      return { state: 'approved', user_id: row.user_id! };
    }
    const interval_s = row.interval_s + (row.too_soon ? step_s : 0);
    await tx`UPDATE device_authorizations SET last_polled_at = now(), interval_s = ${interval_s} WHERE id = ${row.id}`;
    return { state: 'pending', slow_down: row.too_soon, interval_s, expires_in_s: row.expires_in_s };
  }) as Promise<DevicePoll>;
}

/** The pending, unexpired QR-code login whose user code has this hash, or null. */
export async function findPendingDeviceRequest(sql: Sql, user_code_hash: string): Promise<DeviceRequestRow | null> {
  const [row] = await sql<DeviceRequestRow[]>`
    SELECT id, created_at, expires_at, requester_ip, user_agent FROM device_authorizations
    WHERE user_code_hash = ${user_code_hash} AND status = 'pending' AND expires_at > now()`;
  return row ?? null;
}

/** Approve or deny the pending, unexpired QR-code login with this user code hash as `user_id`. @returns false when there is none */
export async function decideDeviceRequest(sql: Sql, user_code_hash: string, user_id: string, status: 'approved' | 'denied'): Promise<boolean> {
  const rows = await sql`
    UPDATE device_authorizations SET status = ${status}, user_id = ${user_id}, decided_at = now()
    WHERE user_code_hash = ${user_code_hash} AND status = 'pending' AND expires_at > now() RETURNING 1`;
  return rows.length > 0;
}
