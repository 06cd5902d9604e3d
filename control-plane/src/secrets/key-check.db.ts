import type { SqlExecutor } from '../contracts.js';

/*
 * SQL of the secrets key check (key-check.ts): one row of platform_settings, read and written
 * under a transaction-scoped advisory lock so instances starting at once settle it one at a time.
 */

/** Name of the platform setting holding the key check. */
export const KEY_CHECK_SETTING = 'secrets_key_check';

/** Take the key-check lock for the rest of `tx` (other instances wait at this call). */
export async function lockKeyCheck(tx: SqlExecutor): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtext('vantage.secrets_key_check'))`;
}

/** The stored key check (a sealed value: secret-box.ts), or null when none is stored yet. */
export async function readKeyCheck(tx: SqlExecutor): Promise<string | null> {
  const [row] = await tx<{ value: string }[]>`SELECT value FROM platform_settings WHERE name = ${KEY_CHECK_SETTING}`;
  return row?.value ?? null;
}

/** Store `sealed` as the key check, replacing any earlier one (after a key rotation). */
export async function writeKeyCheck(tx: SqlExecutor, sealed: string): Promise<void> {
  await tx`
    INSERT INTO platform_settings (name, value) VALUES (${KEY_CHECK_SETTING}, ${sealed})
    ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`;
}

/**
 * Ids of the keys that sealed the monitors' header secrets (at most 20, any order): how a
 * database from before key checks tells which key it needs.
 */
export async function sealedHeaderKeyIds(tx: SqlExecutor): Promise<string[]> {
  const rows = await tx<{ key_id: string }[]>`
    SELECT DISTINCT substring(h.value FROM '^vsec1:([0-9a-f]{8}):') AS key_id
    FROM monitors m,
      jsonb_each_text(CASE WHEN jsonb_typeof(m.config->'headers') = 'object' THEN m.config->'headers' ELSE '{}'::jsonb END) h
    WHERE h.value LIKE 'vsec1:%'
    LIMIT 20`;
  return rows.map((r) => r.key_id).filter(Boolean);
}
