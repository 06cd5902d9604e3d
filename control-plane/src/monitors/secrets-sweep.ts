import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { SecretKeyError, type SecretBox } from '../secrets/secret-box.js';
import { claimHeaderRows, writeResealedConfig } from './header-secrets.db.js';
import { HEADER_TYPES, resealedConfig } from './header-secrets.js';

/** Monitors one transaction claims. */
const BATCH = 200;

/** What a sweep did: rows re-sealed, rows whose secrets could not be opened (left as they are). */
export interface SweepReport {
  resealed: number;
  failed: number;
}

/**
 * Seal the header secrets of every monitor stored before sealing existed (plain text in
 * `config.headers`) and re-seal those sealed with a key other than the current one (after a
 * rotation: docs/api/monitors.md "Secrets in headers"). Run at start on every instance; rows are
 * claimed with FOR UPDATE SKIP LOCKED, so instances share the work and none writes a row twice. A
 * row whose secrets cannot be opened (its key is not configured) is logged and left alone: it
 * keeps working on an instance that has the key. Until a row is swept it works as it is (a plain
 * value is sent to nodes as stored, and masked in reads).
 */
export async function sweepHeaderSecrets(sql: Sql, box: SecretBox, log: Logger): Promise<SweepReport> {
  const report: SweepReport = { resealed: 0, failed: 0 };
  if (!box.key_id) return report;
  let after = '';
  for (;;) {
    const claimed = await sql.begin(async (tx) => {
      const rows = await claimHeaderRows(tx, [...HEADER_TYPES], after, BATCH);
      for (const row of rows) {
        try {
          const config = resealedConfig(box, row.id, row.type, row.config);
          if (config) {
            await writeResealedConfig(tx, row.id, config);
            report.resealed++;
          }
        } catch (err) {
          if (!(err instanceof SecretKeyError)) throw err;
          report.failed++;
          log.error({ monitor_id: row.id, key_id: err.key_id, reason: err.message }, 'header secrets not re-sealed: they cannot be opened with the configured keys');
        }
      }
      if (rows.length > 0) after = rows[rows.length - 1]!.id;
      return rows.length;
    });
    if (claimed < BATCH) return report;
  }
}
