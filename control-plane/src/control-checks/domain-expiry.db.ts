import type { SqlExecutor } from '../contracts.js';

/* SQL of domain_expiry runs (0027_control_checks.sql domain_expiry_state). */

/** A claimed domain_expiry monitor (with its owner and name for `domain.expiring`). */
export interface ClaimedDomainCheck {
  monitor_id: string;
  user_id: string;
  name: string;
  target: string;
  config: Record<string, unknown>;
  interval_s: number;
}

/**
 * Claim up to `limit` active domain_expiry monitors due at `now` (rows created for monitors that
 * have none), leasing each until `now + lease_ms` so that no other instance runs it meanwhile
 * (SKIP LOCKED; a crashed run is retried once the lease ends).
 */
export async function claimDomainChecks(tx: SqlExecutor, now: Date, lease_ms: number, limit: number): Promise<ClaimedDomainCheck[]> {
  await tx`
    INSERT INTO domain_expiry_state (monitor_id, next_run_at)
    SELECT m.id, ${now} FROM monitors m
    WHERE m.type = 'domain_expiry' AND NOT EXISTS (SELECT 1 FROM domain_expiry_state d WHERE d.monitor_id = m.id)
    ON CONFLICT (monitor_id) DO NOTHING`;
  return tx<ClaimedDomainCheck[]>`
    WITH due AS (
      SELECT d.monitor_id FROM domain_expiry_state d JOIN monitors m ON m.id = d.monitor_id
      WHERE m.status = 'active' AND m.type = 'domain_expiry' AND d.next_run_at <= ${now}
      ORDER BY d.next_run_at LIMIT ${limit} FOR UPDATE OF d SKIP LOCKED)
    UPDATE domain_expiry_state d SET next_run_at = ${new Date(now.getTime() + lease_ms)}
    FROM due, monitors m WHERE d.monitor_id = due.monitor_id AND m.id = d.monitor_id
    RETURNING d.monitor_id, m.user_id, m.name, m.target, m.config, m.interval_s`;
}

/** When the monitor's next run is due. */
export async function scheduleDomainCheck(tx: SqlExecutor, monitor_id: string, next_run_at: Date): Promise<void> {
  await tx`UPDATE domain_expiry_state SET next_run_at = ${next_run_at} WHERE monitor_id = ${monitor_id}`;
}
