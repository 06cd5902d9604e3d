/** The last result of one monitor on one node, as kept for the `vantage_monitor_*` series. */
interface LastResult {
  /** `{monitor="…",node="…"}`, escaped once when the pair first reports. */
  labels: string;
  up: 0 | 1;
  /** finished_at − started_at of the check, seconds. */
  duration_s: number;
  /** finished_at, Unix seconds. */
  finished_s: number;
  /** The round's scheduled_at, ms since the epoch: a result of an earlier or the same round never replaces it. */
  round_ms: number;
  /** When this instance stored it (ms since the epoch): what the TTL counts from. */
  seen_ms: number;
}

/** Pairs rendered between two turns of the event loop. */
export const RENDER_SLICE = 5_000;

/** Characters Prometheus label values must escape (text exposition format 0.0.4). */
const escape = (v: string): string => v.replace(/[\\"\n]/g, (ch) => (ch === '\n' ? '\\n' : `\\${ch}`));

/**
 * The last check result of each monitor and node pair this instance stored, rendered as gauges:
 * `vantage_monitor_up{monitor,node}` (1 = the last check succeeded), `vantage_monitor_check_duration_seconds`
 * and `vantage_monitor_last_check_timestamp_seconds`. Fed by the result ingest (no database read
 * at scrape time); bounded by `max_series` pairs (the least recently reporting pair goes first)
 * and `ttl_s` since a pair's last result. Labels are ids only, so a series set is bounded by the
 * monitors and nodes that exist (docs/operators/metrics.md).
 */
export class MonitorSeries {
  // Insertion order is recency order: record() deletes and re-inserts, so the first entries are the oldest.
  private readonly last = new Map<string, LastResult>();

  constructor(private readonly max_series: number, private readonly ttl_s: number, private readonly now: () => number = Date.now) {}

  /** Number of pairs held now. */
  get size(): number {
    return this.last.size;
  }

  /**
   * Record a stored monitor result (times are ISO 8601 strings as the envelope carries them). Only
   * a later round replaces a pair's last result: a redelivery, or a second result a node sent for
   * a round already stored (acked but not stored by the ingest), changes nothing.
   */
  record(r: { monitor_id: string; node_id: string; success: boolean; scheduled_at: string; started_at: string; finished_at: string }): void {
    if (this.max_series === 0) return;
    const key = `${r.monitor_id} ${r.node_id}`;
    const finished = Date.parse(r.finished_at);
    const round_ms = Date.parse(r.scheduled_at);
    const prior = this.last.get(key);
    if (prior && prior.round_ms >= round_ms) return;
    this.last.delete(key);
    this.last.set(key, {
      labels: prior?.labels ?? `{monitor="${escape(r.monitor_id)}",node="${escape(r.node_id)}"}`, up: r.success ? 1 : 0,
      duration_s: Math.max(0, finished - Date.parse(r.started_at)) / 1000, finished_s: finished / 1000, round_ms, seen_ms: this.now(),
    });
    if (this.last.size > this.max_series) this.last.delete(this.last.keys().next().value!);
  }

  /** Drop pairs past the TTL (the oldest come first, so this stops at the first fresh one). */
  private expire(): void {
    const cutoff = this.now() - this.ttl_s * 1000;
    for (const [key, r] of this.last) {
      if (r.seen_ms >= cutoff) break;
      this.last.delete(key);
    }
  }

  /**
   * The series in the Prometheus text format (0.0.4), HELP and TYPE lines included; '' when none.
   * Built in slices of {@link RENDER_SLICE} pairs with a turn of the event loop between them, so a
   * scrape of many monitors does not hold requests up.
   */
  async render(): Promise<string> {
    this.expire();
    if (this.last.size === 0) return '';
    const entries = [...this.last.values()];
    const up: string[] = ['# HELP vantage_monitor_up Whether the last check of the monitor on the node succeeded (1) or failed (0).\n# TYPE vantage_monitor_up gauge\n'];
    const duration: string[] = ['# HELP vantage_monitor_check_duration_seconds Duration of the last check of the monitor on the node, seconds.\n# TYPE vantage_monitor_check_duration_seconds gauge\n'];
    const at: string[] = ['# HELP vantage_monitor_last_check_timestamp_seconds When the last check of the monitor on the node finished, Unix seconds.\n# TYPE vantage_monitor_last_check_timestamp_seconds gauge\n'];
    for (let i = 0; i < entries.length; i += RENDER_SLICE) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      let u = '';
      let d = '';
      let a = '';
      for (const r of entries.slice(i, i + RENDER_SLICE)) {
        u += `vantage_monitor_up${r.labels} ${r.up}\n`;
        d += `vantage_monitor_check_duration_seconds${r.labels} ${r.duration_s}\n`;
        a += `vantage_monitor_last_check_timestamp_seconds${r.labels} ${r.finished_s}\n`;
      }
      up.push(u);
      duration.push(d);
      at.push(a);
    }
    return up.join('') + duration.join('') + at.join('');
  }
}
