import type { MonitorResultEnvelope, MonitorType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { MonitorResultStore, SqlExecutor } from '../contracts.js';
import { PLACEMENT_HISTORY_MS } from '../monitors/placement-job.js';
import { addToRounds, ingestMonitors, insertChecks, markRollupDirty, monitorConfigs, seriesIds, type CheckInsert, type RoundAdd } from './ingest.db.js';
import { encodeOutput } from './output-codec.js';
import { checkRetention } from './retention.js';
import { CHECK_TRAITS, roundDeadlineMs } from './traits.js';

/** Why a monitor result is refused (sent back to the node; it is acked, so the node drops it). */
export const CHECK_REJECT = {
  not_assigned: 'monitor not assigned to this node',
  type_mismatch: 'result type does not match the monitor type',
  too_old: 'round is older than the rounds retention (results are accepted for as long as rounds are kept)',
  in_future: 'scheduled_at lies more than a day in the future (is the node\'s clock set?)',
  far_start: 'started_at is more than a day away from scheduled_at',
} as const;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * The check store (contracts.ts MonitorResultStore; docs/architecture/checks.md "Ingest"): what the
 * result sink hands every monitor result to, inside its transaction. Per batch, a fixed handful of
 * statements whatever its size: the monitors and the node's placements, the series ids (cached),
 * one multi-row insert of the checks (ON CONFLICT DO NOTHING on (series, scheduled_at)), one
 * multi-row upsert of their rounds.
 *
 * A result is refused ({@link CHECK_REJECT}) when its monitor is not placed on the node (nor was
 * within the placement history: monitors/placement-job.ts PLACEMENT_HISTORY_MS), when its type is
 * not the monitor's, when its round is older than the rounds retention or more than a day ahead, or
 * when it started more than a day from its round. Everything else counts as stored: newly, or
 * already (the same node's result for the same round, whatever its result id), so the node can
 * drop it. Rounds get the new reports and become due for judging (checks/decide.ts).
 */
export function createCheckStore(deps: { config: Pick<Config, 'plan' | 'checks_retention_days' | 'checks_rounds_retention_days' | 'checks_rollup_retention_days' | 'checks_round_grace_ms'> }): MonitorResultStore {
  const retention_ms = checkRetention(deps.config).rounds_days * DAY_MS;
  const grace_ms = deps.config.checks_round_grace_ms;
  // (monitor, node) → series id, only for series seen committed (found by a SELECT): an id made
  // by a batch whose transaction then rolled back would point nowhere.
  const series = new Map<string, number>();
  // monitor id → its revision and round deadline offset (ms after the round's start).
  const deadlines = new Map<string, { revision: number; ms: number }>();

  async function deadlineMs(tx: SqlExecutor, monitors: Array<{ id: string; type: MonitorType; interval_s: number; revision: number }>): Promise<Map<string, number>> {
    const stale = monitors.filter((m) => deadlines.get(m.id)?.revision !== m.revision);
    if (stale.length > 0) {
      const byId = new Map(monitors.map((m) => [m.id, m]));
      for (const row of await monitorConfigs(tx, stale.map((m) => m.id))) {
        const m = byId.get(row.id)!;
        if (deadlines.size > 100_000) deadlines.clear();
        deadlines.set(row.id, { revision: row.revision, ms: roundDeadlineMs(m.type, row.config, m.interval_s, grace_ms) });
      }
    }
    return new Map(monitors.map((m) => [m.id, deadlines.get(m.id)?.ms ?? m.interval_s * 1000 + grace_ms]));
  }

  async function store(tx: SqlExecutor, node_id: string, results: MonitorResultEnvelope[]) {
    const stored: string[] = [];
    const rejected: Array<{ result_id: string; reason: string }> = [];
    if (results.length === 0) return { stored, rejected };
    const now = Date.now();
    const monitors = new Map((await ingestMonitors(tx, node_id, [...new Set(results.map((r) => r.monitor_id))], PLACEMENT_HISTORY_MS)).map((m) => [m.id, m]));

    const accepted: MonitorResultEnvelope[] = [];
    for (const r of results) {
      const m = monitors.get(r.monitor_id);
      const scheduled = Date.parse(r.scheduled_at);
      const reason = !m || !m.assigned ? CHECK_REJECT.not_assigned
        : m.type !== r.type ? `${CHECK_REJECT.type_mismatch} (${r.type} for a ${m.type} monitor)`
          : scheduled < now - retention_ms ? CHECK_REJECT.too_old
            : scheduled > now + DAY_MS ? CHECK_REJECT.in_future
              : Math.abs(Date.parse(r.started_at) - scheduled) > DAY_MS ? CHECK_REJECT.far_start : null;
      if (reason) rejected.push({ result_id: r.result_id, reason });
      else accepted.push(r);
    }
    if (accepted.length === 0) return { stored, rejected };

    const used = [...new Set(accepted.map((r) => r.monitor_id))];
    const ids = new Map<string, number>();
    const unknown = used.filter((m) => {
      const id = series.get(`${m}\n${node_id}`);
      if (id !== undefined) ids.set(m, id);
      return id === undefined;
    });
    if (unknown.length > 0) {
      const got = await seriesIds(tx, node_id, unknown);
      for (const [m, id] of got.ids) {
        ids.set(m, id);
        if (!got.created.has(m)) {
          if (series.size > 500_000) series.clear();
          series.set(`${m}\n${node_id}`, id);
        }
      }
    }

    // One row per (series, round): a round sent twice in one batch is stored once.
    const rows = new Map<string, { r: MonitorResultEnvelope; row: CheckInsert }>();
    for (const r of accepted) {
      stored.push(r.result_id);
      const series_id = ids.get(r.monitor_id)!;
      const scheduled = Date.parse(r.scheduled_at);
      const key = `${series_id}/${scheduled}`;
      if (rows.has(key)) continue;
      const started = Date.parse(r.started_at);
      const output = r.output as Record<string, unknown> | null;
      rows.set(key, {
        r,
        row: {
          series_id, scheduled_at: new Date(scheduled).toISOString(), start_offset_ms: started - scheduled,
          duration_ms: Date.parse(r.finished_at) - started, response_ms: CHECK_TRAITS[r.type].responseMs(output),
          success: r.success, error_class: r.error_class, error: r.error,
          assertions: r.assertions.length > 0 ? JSON.stringify(r.assertions) : null,
          output: null, output_z: output === null ? null : `\\x${encodeOutput(output).toString('hex')}`,
        },
      });
    }
    const inserted = await insertChecks(tx, [...rows.values()].map((x) => x.row));
    if (inserted.size === 0) return { stored, rejected };

    const deadline = await deadlineMs(tx, used.map((id) => monitors.get(id)!));
    const rounds = new Map<string, RoundAdd>();
    const past_hours = new Set<string>();
    const this_hour = Math.floor(now / HOUR_MS) * HOUR_MS;
    for (const [key, { r, row }] of rows) {
      if (!inserted.has(key)) continue;
      const m = monitors.get(r.monitor_id)!;
      const scheduled = Date.parse(row.scheduled_at);
      const rkey = `${r.monitor_id}/${scheduled}`;
      let add = rounds.get(rkey);
      if (!add) {
        add = {
          monitor_id: r.monitor_id, scheduled_at: row.scheduled_at, deadline_at: new Date(scheduled + deadline.get(r.monitor_id)!).toISOString(),
          interval_s: m.interval_s, expected: m.placed, reported: 0, failed: 0,
        };
        rounds.set(rkey, add);
      }
      add.reported++;
      if (!r.success) add.failed++;
      const hour = Math.floor(scheduled / HOUR_MS) * HOUR_MS;
      if (hour < this_hour) past_hours.add(new Date(hour).toISOString());
    }
    await addToRounds(tx, [...rounds.values()]);
    await markRollupDirty(tx, [...past_hours]);
    return { stored, rejected };
  }

  return { store };
}
