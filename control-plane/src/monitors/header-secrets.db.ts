import type { MonitorType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/*
 * SQL of the header-secrets sweep (secrets-sweep.ts): monitors of the HTTP-like types with request
 * headers, claimed a batch at a time, and their config written back.
 */

/** A monitor whose headers may need sealing. */
export interface HeaderSecretsRow {
  id: string;
  type: MonitorType;
  config: Record<string, unknown>;
}

/**
 * Up to `limit` monitors of `types` with a non-empty `config.headers` and an id after `after`, by
 * id, locked for the rest of `tx` (rows another transaction holds are skipped: SKIP LOCKED).
 */
export async function claimHeaderRows(tx: SqlExecutor, types: readonly MonitorType[], after: string, limit: number): Promise<HeaderSecretsRow[]> {
  return tx<HeaderSecretsRow[]>`
    SELECT id, type, config FROM monitors
    WHERE type = ANY(${types as MonitorType[]}::text[]) AND id > ${after}
      AND jsonb_typeof(config->'headers') = 'object' AND config->'headers' <> '{}'::jsonb
    ORDER BY id LIMIT ${limit}
    FOR UPDATE SKIP LOCKED`;
}

/**
 * Write a monitor's config back with its headers re-sealed. Neither `revision` nor `updated_at`
 * moves: what nodes receive (the opened headers) is the same, so no assignment is sent again.
 */
export async function writeResealedConfig(tx: SqlExecutor, id: string, config: Record<string, unknown>): Promise<void> {
  await tx`UPDATE monitors SET config = ${tx.json(config as never)} WHERE id = ${id}`;
}
