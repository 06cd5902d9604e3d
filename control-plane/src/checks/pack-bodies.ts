import type { SqlExecutor } from '../contracts.js';
import { decodeBlock, encodeBlock } from './pack-codec.js';
import { controlBlocksAt, lockBlocks, writeBlocks, type BlockRow } from './pack.db.js';

const HOUR_MS = 3_600_000;
/** Packed days are wholly older than the rounds retention, which is at least a day (config/checks.ts). */
const PACKED_REACH_MS = 86_400_000;

/**
 * Clear the heartbeat check-in bodies (`output.body` null) of monitor `monitor_id`'s checks at
 * `ats` where they are packed (docs/api/checks.md "heartbeat": only the newest bodies are kept;
 * control-checks/heartbeat.db.ts keepCheckinBody clears the raw ones). Only checks older than a day
 * can be packed, so a heartbeat checking in more often than every 15 minutes never gets here. In
 * the caller's transaction, serialised with packing (pack.db.ts lockBlocks): a day packed while its
 * raw body was being cleared is cleared here after.
 * @returns how many bodies were cleared
 */
export async function clearPackedBodies(tx: SqlExecutor, monitor_id: string, ats: Date[], now: Date): Promise<number> {
  const old = new Set(ats.filter((a) => a.getTime() < now.getTime() - PACKED_REACH_MS).map((a) => a.getTime()));
  if (old.size === 0) return 0;
  await lockBlocks(tx);
  const hours = [...new Set([...old].map((ms) => Math.floor(ms / HOUR_MS) * HOUR_MS))].map((ms) => new Date(ms));
  let cleared = 0;
  const changed: BlockRow[] = [];
  for (const b of await controlBlocksAt(tx, monitor_id, hours)) {
    const checks = decodeBlock(b.hour, b.data);
    let n = 0;
    for (const c of checks) {
      const out = c.output as Record<string, unknown> | null;
      if (old.has(c.scheduled_at.getTime()) && out !== null && typeof out === 'object' && out.body !== null && out.body !== undefined) {
        out.body = null;
        n++;
      }
    }
    if (n > 0) changed.push({ ...b, data: encodeBlock(b.hour, checks) });
    cleared += n;
  }
  await writeBlocks(tx, changed, true);
  return cleared;
}
