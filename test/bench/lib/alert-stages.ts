/**
 * Where one alert-bench latency trial spent its time (alert-bench.ts `--phases latency`): each stage
 * of the alert path as an instant, ms after the result was handed to the sink, from the hooks of
 * the running pipeline (in-process wakes, NOTIFYs heard, the verdict job's state passes) and from
 * the rows the pipeline wrote (their timestamps: same machine, same clock). Figures are printed,
 * never asserted.
 */
import { ALERT_ENGINE_WAKE_CHANNEL } from '../../../control-plane/src/alerting/engine-hook.js';
import type { startAlertPipeline } from '../../../control-plane/src/alerting/pipeline-fixtures.js';

type Pipeline = Awaited<ReturnType<typeof startAlertPipeline>>;

const nowMs = () => performance.timeOrigin + performance.now();

/** One trial as the bench saw it: its monitor and round, when its result was handed over, stored, and paged. */
export interface Trial { monitor_id: string; round_at: string; handed_ms: number; stored_ms: number; page_ms: number }

/** What the database holds of a trial's alert: its first down event's type (null: none) and how many events (any type) the monitor has. */
export interface TrialEvents { event_type: string | null; events: number }

/**
 * The stages of a trial, ms after the hand-over (null: not seen), in path order:
 * - `stored`: the sink returned (the batch committed; check ingest woke the verdict job then, if it did);
 * - `verdict_woken`: the first in-process verdict wake during the hand-over (null: ingest woke nothing);
 * - `round_decided`: the start of the verdict pass that judged the round (check_rounds.decided_at,
 *   its transaction's clock); `state_changed` its state change's recorded_at; `pass_emitted`: the
 *   pass told its subscribers (inside its transaction, just before the commit);
 * - `engine_notified`: the first alert-engine NOTIFY heard after that (the verdict pass's commit);
 * - `event_opened`: the engine pass that opened the event started (alert_events.created_at);
 * - `delivery_queued`: its page's delivery was queued (deliveries.created_at: that transaction's start);
 * - `delivery_notified`: the first delivery NOTIFY heard after that;
 * - `attempt_started`: the worker started sending it (delivery_attempts.started_at);
 * - `delivery_finished`: its outcome recorded (deliveries.finished_at); `page_received`: at the receiver.
 */
export type Stages = Record<typeof STAGES[number], number | null>;

export const STAGES = [
  'stored', 'verdict_woken', 'round_decided', 'state_changed', 'pass_emitted', 'engine_notified', 'event_opened',
  'delivery_queued', 'delivery_notified', 'attempt_started', 'delivery_finished', 'page_received',
] as const;

/**
 * Start recording the pipeline's wakes: verdict wakes (wrapping the wake check ingest calls), the
 * verdict job's state passes per monitor (a subscriber of its hooks), and the alert-engine and
 * delivery NOTIFYs (LISTEN on a connection of the bench's own). @returns the recorder; `stop()` unlistens
 */
export async function traceAlertPath(p: Pipeline) {
  const verdict_wakes: number[] = [];
  const engine_notifies: number[] = [];
  const delivery_notifies: number[] = [];
  const passes = new Map<string, number>();
  const wake = p.ctx.verdict_wake;
  const inner = wake.wake.bind(wake);
  wake.wake = () => {
    verdict_wakes.push(nowMs());
    inner();
  };
  const unhook = p.hooks.onStatePass((list) => {
    for (const pass of list) if (pass.state === 'down' && !passes.has(pass.monitor.id)) passes.set(pass.monitor.id, nowMs());
  });
  const subs = await Promise.all([
    p.ctx.sql.listen(ALERT_ENGINE_WAKE_CHANNEL, () => engine_notifies.push(nowMs())),
    p.ctx.sql.listen(p.ctx.deps.config.delivery_notify_channel, () => delivery_notifies.push(nowMs())),
  ]);
  const firstAfter = (xs: number[], from: number | null, to = Infinity) => (from === null ? null : xs.find((x) => x >= from && x <= to) ?? null);

  return {
    /** The stages of `trials` (read from the database once the trials are over). */
    async stages(trials: Trial[]): Promise<Array<Trial & TrialEvents & { stages: Stages }>> {
      const ids = trials.map((t) => t.monitor_id);
      const rows = await p.ctx.sql<Array<{ monitor_id: string; event_type: string | null; events: number; decided: Date | null; changed: Date | null; opened: Date | null; queued: Date | null; attempt: Date | null; finished: Date | null }>>`
        SELECT m.id AS monitor_id,
          (SELECT min(r.decided_at) FROM check_rounds r WHERE r.monitor_id = m.id AND r.verdict = 'down') AS decided,
          (SELECT min(c.recorded_at) FROM monitor_state_changes c WHERE c.monitor_id = m.id AND c.to_state = 'down') AS changed,
          e.type AS event_type, (SELECT count(*)::int FROM alert_events x WHERE x.monitor_id = m.id) AS events,
          e.created_at AS opened, d.created_at AS queued,
          (SELECT min(a.started_at) FROM delivery_attempts a WHERE a.delivery_id = d.id) AS attempt, d.finished_at AS finished
        FROM unnest(${ids}::text[]) AS m(id)
        LEFT JOIN LATERAL (SELECT * FROM alert_events e WHERE e.monitor_id = m.id AND e.type = 'down' ORDER BY e.created_at LIMIT 1) e ON true
        LEFT JOIN LATERAL (SELECT d.* FROM alert_event_notifications n JOIN deliveries d ON d.id = n.delivery_id
          WHERE n.event_id = e.id AND n.kind = 'firing' ORDER BY d.created_at LIMIT 1) d ON true`;
      const byId = new Map(rows.map((r) => [r.monitor_id, r]));
      return trials.map((t) => {
        const r = byId.get(t.monitor_id);
        const ms = (d: Date | null | undefined) => (d ? d.getTime() : null);
        const emitted = passes.get(t.monitor_id) ?? null;
        const queued = ms(r?.queued);
        const abs: Record<typeof STAGES[number], number | null> = {
          stored: t.stored_ms, verdict_woken: firstAfter(verdict_wakes, t.handed_ms, t.stored_ms),
          round_decided: ms(r?.decided), state_changed: ms(r?.changed), pass_emitted: emitted,
          engine_notified: firstAfter(engine_notifies, emitted), event_opened: ms(r?.opened), delivery_queued: queued,
          delivery_notified: firstAfter(delivery_notifies, queued), attempt_started: ms(r?.attempt), delivery_finished: ms(r?.finished),
          page_received: t.page_ms,
        };
        const stages = Object.fromEntries(STAGES.map((s) => [s, abs[s] === null ? null : Math.round(abs[s]! - t.handed_ms)])) as Stages;
        return { ...t, event_type: r?.event_type ?? null, events: r?.events ?? 0, stages };
      });
    },
    async stop() {
      unhook();
      wake.wake = inner;
      await Promise.all(subs.map((s) => s.unlisten().catch(() => {})));
    },
  };
}

/**
 * The stage a trial waited longest for: the largest step between consecutive stages seen (ms),
 * named by the stage it ended at ("round_decided": the verdict pass that judged the round came
 * that long after the stage before it).
 */
export function longestWait(stages: Stages): { stage: string; after: string; ms: number } {
  let prev: { name: string; at: number } = { name: 'handed', at: 0 };
  let best = { stage: 'handed', after: 'handed', ms: 0 };
  for (const s of STAGES) {
    const at = stages[s];
    if (at === null) continue;
    if (at - prev.at > best.ms) best = { stage: s, after: prev.name, ms: at - prev.at };
    prev = { name: s, at: Math.max(prev.at, at) };
  }
  return best;
}
