import type { MonitorState, StateChange } from '@vantage/shared-protocol';
import type { MaintenanceCalendar } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import {
  addRollupDeltas, changesAround, claimMonitors, earliestDirty, failuresOf, lockRoundsFrom, silentBefore, writeChanges, writeMonitors, writeRounds,
  type ChangeInsert, type ChangeRow, type ClaimedMonitor, type LoggedChange, type MonitorWrite, type RollupDelta, type RoundRow, type RoundWrite,
} from './decide.db.js';
import type { CheckHooks } from './hooks.js';
import { NO_DATA_ROUNDS, replayStates } from './replay.js';
import { roundQuorum, roundVerdict, type Verdict } from './verdict.js';

const HOUR_MS = 3_600_000;
const OVERLAYS: ReadonlySet<MonitorState> = new Set(['paused', 'maintenance']);

/** What one pass did. */
export interface DecideOutcome {
  monitors: number;
  rounds: number;
  changes: number;
}

/** The API shape of a recorded change. */
export function toStateChange(r: ChangeRow): StateChange {
  return {
    id: String(r.id), monitor_id: r.monitor_id, from_state: r.from_state, to_state: r.to_state,
    changed_at: r.changed_at.toISOString(), recorded_at: r.recorded_at.toISOString(), source: r.source, late: r.late,
    reason: r.reason, failing_nodes: r.failing_nodes, round_at: r.round_at?.toISOString() ?? null,
  };
}

/** Why a round failed, in words: "2 of 3 nodes failed (quorum 2): connection refused; timeout". */
export function failureReason(r: { failed: number; reported: number; expected: number; quorum: number }, nodes: Array<{ error: string | null }>): string {
  const errors = [...new Set(nodes.map((n) => n.error).filter((e): e is string => !!e))].slice(0, 3);
  const silent = r.expected - r.reported;
  const head = `${r.failed} of ${r.reported} reporting node${r.reported === 1 ? '' : 's'} failed (quorum ${r.quorum}${silent > 0 ? `, ${silent} silent` : ''})`;
  return (errors.length > 0 ? `${head}: ${errors.join('; ')}` : head).slice(0, 2000);
}

type Contribution = Omit<RollupDelta, 'monitor_id' | 'hour'>;

/** Why a monitor went to no_data, in words: "no node reported for 2 rounds in a row (1 placed)". */
export function noDataReason(expected: number): string {
  return `no node reported for ${NO_DATA_ROUNDS} rounds in a row (${expected} placed)`;
}

/** Rollup fields, in one list (sums, merges and the filter of empty deltas). */
const ROLLUP_FIELDS = ['up_s', 'degraded_s', 'down_s', 'maintenance_s', 'no_data_s', 'rounds_up', 'rounds_degraded', 'rounds_down', 'rounds_no_data'] as const;

/** What a round adds to its hour's uptime row: its interval as up, degraded, down, no-data or maintenance time. */
function contribution(verdict: Verdict | null, counted: boolean, interval_s: number): Contribution {
  const c = Object.fromEntries(ROLLUP_FIELDS.map((f) => [f, 0])) as Contribution;
  if (verdict === null) return c;
  if (!counted) c.maintenance_s = interval_s;
  else {
    c[`${verdict}_s`] = interval_s;
    c[`rounds_${verdict}`] = 1;
  }
  return c;
}

/** The plan for one monitor: what to write and what to tell subscribers. */
interface MonitorPlan {
  rounds: RoundWrite[];
  deltas: RollupDelta[];
  inserts: Array<ChangeInsert & { round: RoundRow & { quorum_now: number; expected_now: number } }>;
  superseded: number[];
  write: MonitorWrite | null;
  decided: number;
}

/**
 * Judge one claimed monitor's rounds and replay its state (pure apart from its inputs):
 * - dirty rounds are judged in order while each is complete (all placed nodes reported) or past
 *   its deadline; the first one still waiting stops the rest, so verdicts are always taken in order;
 * - the state is replayed from the earliest dirty round (replay.ts) over every judged round and
 *   the pause/resume/maintenance changes from then on; recorded verdict changes that no longer
 *   hold are superseded and new ones recorded, `late` when their round got results after its
 *   deadline or when an earlier round's change rewrote history already judged;
 * - uptime rollups get the difference of every round whose verdict or counted flag moved.
 */
function planMonitor(m: ClaimedMonitor, rounds: RoundRow[], before: { to_state: MonitorState; manual: boolean }, logged: LoggedChange[], windowed: Set<number>, now: Date, silent_before: number): MonitorPlan {
  const plan: MonitorPlan = { rounds: [], deltas: [], inserts: [], superseded: [], write: null, decided: 0 };
  let blocked = false;
  let judgedBefore: Date | null = null;
  const next = rounds.map((r) => {
    if (r.verdict !== null && !r.dirty) judgedBefore = r.scheduled_at;
    const expected_now = Math.max(r.expected, r.reported, 1);
    const quorum_now = roundQuorum(expected_now, m.down_quorum);
    if (!r.dirty || blocked) return { ...r, decide: false, verdict_now: r.verdict, quorum_now, expected_now };
    const decidable = r.reported >= r.expected || r.deadline_at.getTime() <= now.getTime();
    if (!decidable) {
      if (r.verdict === null) blocked = true;
      return { ...r, decide: false, verdict_now: r.verdict, quorum_now, expected_now };
    }
    plan.decided++;
    return { ...r, decide: true, verdict_now: roundVerdict(r.failed, r.reported, quorum_now), quorum_now, expected_now };
  });
  const firstChanged = next.find((r) => r.decide && r.verdict_now !== r.verdict);
  const rewrite = !!firstChanged && !!judgedBefore && (judgedBefore as Date).getTime() > firstChanged.scheduled_at.getTime();

  const judged = next.filter((r) => r.verdict_now !== null);
  // Changes made by hand are fixed events of the replay; the replay's own (round_at set) are redone.
  const manual = logged.filter((c) => c.round_at === null).map((c) => ({ at_ms: c.changed_at.getTime(), to_state: c.to_state }));
  const replay = replayStates(before.to_state, judged.map((r) => ({
    at_ms: r.scheduled_at.getTime(), verdict: r.verdict_now!, maintenance: windowed.has(r.scheduled_at.getTime()),
  })), manual, before.manual && OVERLAYS.has(before.to_state), silent_before);

  const deltas = new Map<number, RollupDelta>();
  judged.forEach((r, i) => {
    const counted = replay.counted[i]!;
    if (r.decide || counted !== r.counted) {
      plan.rounds.push({
        monitor_id: m.id, scheduled_at: r.scheduled_at, decide: r.decide, verdict: r.verdict_now, quorum: r.quorum_now, expected: r.expected_now,
        reported: r.reported, failed: r.failed, counted,
      });
    }
    const was = contribution(r.verdict, r.counted, r.interval_s);
    const now_c = contribution(r.verdict_now, counted, r.interval_s);
    const hour = Math.floor(r.scheduled_at.getTime() / HOUR_MS) * HOUR_MS;
    const d = deltas.get(hour) ?? { monitor_id: m.id, hour: new Date(hour), ...contribution(null, true, 0) };
    for (const k of ROLLUP_FIELDS) d[k] += now_c[k] - was[k];
    deltas.set(hour, d);
  });
  plan.deltas = [...deltas.values()].filter((d) => ROLLUP_FIELDS.some((f) => d[f] !== 0));

  const key = (at: number, from: string, to: string) => `${at}/${from}/${to}`;
  const existing = new Map(logged.filter((c) => c.round_at !== null).map((c) => [key(c.changed_at.getTime(), c.from_state, c.to_state), c]));
  for (const t of replay.transitions) {
    const k = key(t.at_ms, t.from, t.to);
    if (existing.has(k)) {
      existing.delete(k);
      continue;
    }
    const round = judged[t.round_index]!;
    plan.inserts.push({
      monitor_id: m.id, source: t.to === 'maintenance' ? 'maintenance' : 'verdict', from_state: t.from, to_state: t.to,
      changed_at: round.scheduled_at, late: round.late || rewrite,
      reason: t.to === 'maintenance' ? 'in a maintenance window' : t.to === 'no_data' ? noDataReason(round.expected) : null,
      failing_nodes: [], round,
    });
  }
  plan.superseded = [...existing.values()].map((c) => c.id);

  // The last check is the last round with a report: a no_data round checked nothing.
  const lastJudged = next.filter((r) => r.decide && r.verdict_now !== 'no_data').at(-1)?.scheduled_at ?? null;
  // The current state started at the last transition into it (a replay may move that instant).
  const last = replay.transitions.at(-1);
  const since = last && last.to === replay.final ? new Date(last.at_ms) : null;
  const changed_at = replay.final !== m.state ? since ?? now
    : since && since.getTime() !== m.state_changed_at.getTime() && (plan.inserts.length > 0 || plan.superseded.length > 0) ? since : null;
  if (replay.final !== m.state || lastJudged || changed_at) plan.write = { id: m.id, state: replay.final, changed_at, last_round_at: lastJudged };
  return plan;
}

/**
 * One pass of the verdict job (docs/architecture/checks.md "Verdicts"): in one transaction, claim up
 * to `limit` monitors with rounds to judge (FOR NO KEY UPDATE SKIP LOCKED: any number of instances), lock
 * their rounds from the earliest dirty one, judge and replay (planMonitor), and write verdicts,
 * state changes (with reasons: which nodes failed, with which errors), uptime rollup differences
 * and each monitor's state and last check; then tell `hooks` subscribers, once for every monitor
 * with changes, still inside the transaction.
 */
export async function decidePass(deps: { sql: Sql; hooks?: CheckHooks; maintenance?: MaintenanceCalendar }, limit = 200): Promise<DecideOutcome> {
  return deps.sql.begin(async (tx) => {
    const monitors = await claimMonitors(tx, limit);
    if (monitors.length === 0) return { monitors: 0, rounds: 0, changes: 0 };
    const t0 = await earliestDirty(tx, monitors.map((m) => m.id));
    const claimed = monitors.filter((m) => t0.has(m.id));
    const { rounds, now } = await lockRoundsFrom(tx, t0);
    // Rounds carry their reports: ingest counts each check stored into its round, and waits for
    // the lock taken above to count one more.
    const [{ before, after }, silent] = await Promise.all([changesAround(tx, t0), silentBefore(tx, t0, NO_DATA_ROUNDS - 1)]);
    // Rounds a maintenance window covers (asked about every round the replay walks).
    const covered = deps.maintenance ? await deps.maintenance.covered(tx, [...rounds.values()].flat().map((r) => ({ monitor_id: r.monitor_id, at: r.scheduled_at }))) : new Set<string>();
    const windowed = new Map<string, Set<number>>();
    for (const key of covered) {
      const cut = key.lastIndexOf('/');
      const id = key.slice(0, cut);
      windowed.set(id, (windowed.get(id) ?? new Set()).add(Number(key.slice(cut + 1))));
    }
    const plans = new Map(claimed.map((m) => {
      const logged = after.get(m.id) ?? [];
      // No change logged at all: a paused monitor (or one in maintenance) stays so; else it starts pending.
      const initial = before.get(m.id) ?? (logged.length === 0 && OVERLAYS.has(m.state) ? { to_state: m.state, manual: true } : { to_state: 'pending' as const, manual: false });
      return [m.id, planMonitor(m, rounds.get(m.id) ?? [], initial, logged, windowed.get(m.id) ?? new Set(), now, silent.get(m.id) ?? 0)];
    }));

    const all = [...plans.values()];
    const failing = all.flatMap((p) => p.inserts.filter((c) => c.to_state === 'down' || c.to_state === 'degraded'));
    const failures = await failuresOf(tx, failing.map((c) => ({ monitor_id: c.monitor_id, at: c.changed_at })));
    for (const c of all.flatMap((p) => p.inserts)) {
      if (c.to_state !== 'down' && c.to_state !== 'degraded') continue;
      const nodes = failures.get(`${c.monitor_id}/${c.changed_at.getTime()}`) ?? [];
      c.failing_nodes = nodes;
      c.reason = failureReason({ failed: c.round.failed, reported: c.round.reported, expected: c.round.expected_now, quorum: c.round.quorum_now }, nodes);
    }

    await writeRounds(tx, all.flatMap((p) => p.rounds));
    const inserted = await writeChanges(tx, all.flatMap((p) => p.superseded), all.flatMap((p) => p.inserts.map(({ round: _, ...c }) => c)));
    await addRollupDeltas(tx, mergeDeltas(all.flatMap((p) => p.deltas)));
    await writeMonitors(tx, all.flatMap((p) => (p.write ? [p.write] : [])));

    if (deps.hooks) {
      const byMonitor = new Map<string, ChangeRow[]>();
      for (const r of inserted) byMonitor.set(r.monitor_id, [...(byMonitor.get(r.monitor_id) ?? []), r]);
      await deps.hooks.emit(claimed.flatMap((m) => {
        const changes = byMonitor.get(m.id);
        return changes ? [{
          monitor: { id: m.id, user_id: m.user_id, name: m.name, type: m.type, target: m.target },
          previous_state: m.state, state: plans.get(m.id)!.write?.state ?? m.state, changes: changes.map(toStateChange),
        }] : [];
      }), tx);
    }
    return { monitors: claimed.length, rounds: all.reduce((n, p) => n + p.decided, 0), changes: inserted.length };
  });
}

function mergeDeltas(deltas: RollupDelta[]): RollupDelta[] {
  const out = new Map<string, RollupDelta>();
  for (const d of deltas) {
    const k = `${d.monitor_id}/${d.hour.getTime()}`;
    const e = out.get(k);
    if (!e) out.set(k, { ...d });
    else for (const f of ROLLUP_FIELDS) e[f] += d[f];
  }
  return [...out.values()];
}
