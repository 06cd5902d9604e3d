import type { CheckItem } from '@vantage/shared-protocol';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Sql } from '../db/sql.js';
import type { AppEnv } from '../env.js';
import { toStateChange } from './decide.js';
import { decodeOutput } from './output-codec.js';
import { checksStoredAfter, databaseNowUs, lastStateChangeId, monitorSeries, stateChangesAfter, type CheckRow, type SeriesRow } from './history.db.js';

/**
 * Stream timings, ms: poll period, keep-alive comment period, how far back rounds are streamed,
 * and how long after it is stored a check is sent (no batch still being written can then commit a
 * check before it: the order of the stream is final).
 */
export interface MonitorStreamTimings { poll_ms: number; keepalive_ms: number; window_ms: number; settle_ms: number }
const DEFAULTS: MonitorStreamTimings = { poll_ms: 1000, keepalive_ms: 15_000, window_ms: 3_600_000, settle_ms: 3_000 };
/** Series are looked up again this often (a node newly placed starts reporting), ms. */
const SERIES_REFRESH_MS = 10_000;
const BATCH = 500;

/** Where a stream stands: the last check sent (stored_at µs since the epoch, series, round ms) and the last state change id. */
interface Cursor { stored_us: number; series_id: number; scheduled_ms: number; change_id: number }

/** Event id: `<stored µs>_<series>_<round ms>_<change id>` (opaque to clients; sent back as Last-Event-ID). */
export function formatCursor(c: Cursor): string {
  return `${c.stored_us}_${c.series_id}_${c.scheduled_ms}_${c.change_id}`;
}

/** The cursor of a Last-Event-ID header, or null when it is not one of ours. */
export function parseCursor(id: string | undefined): Cursor | null {
  const m = id ? /^(\d{1,17})_(\d{1,10})_(\d{1,15})_(\d{1,17})$/.exec(id.trim()) : null;
  if (!m) return null;
  const [stored_us, series_id, scheduled_ms, change_id] = m.slice(1).map(Number) as [number, number, number, number];
  return { stored_us, series_id, scheduled_ms, change_id };
}

/** The API shape of a stored check (docs/api/monitors.md "Checks"). */
export function toCheckItem(monitor_id: string, node_id: string | null, r: Omit<CheckRow, 'stored_at'>): CheckItem {
  const started = r.scheduled_at.getTime() + r.start_offset_ms;
  return {
    monitor_id, node_id, scheduled_at: r.scheduled_at.toISOString(), started_at: new Date(started).toISOString(),
    finished_at: new Date(started + r.duration_ms).toISOString(), success: r.success, response_ms: r.response_ms,
    error: r.error, error_class: r.error_class, assertions: r.assertions ?? [],
    output: r.output_z ? decodeOutput(r.output_z) as Record<string, unknown> | null : r.output,
  };
}

/**
 * Server-sent events of one monitor (text/event-stream; docs/api/monitors.md "Event stream"):
 * `event: check` for every check stored from now on whose round started within `window_ms`, sent
 * `settle_ms` after it was stored, in storage order, and `event: state_change` for every state
 * change recorded (late ones included, marked `late`). Each frame's `id:` is a cursor; a client
 * reconnecting with `Last-Event-ID` gets exactly the events after it. Polls the database every
 * `poll_ms`; `: keepalive` comments keep proxies from closing an idle stream. `signUrls` turns
 * the artifact paths of each check into signed URLs (artifacts/urls.ts).
 */
export function streamMonitorEvents(
  c: Context<AppEnv>, sql: Sql, monitor_id: string, timings: Partial<MonitorStreamTimings> = {}, signUrls: (item: CheckItem) => CheckItem = (item) => item,
): Response {
  const t = { ...DEFAULTS, ...timings };
  const resume = parseCursor(c.req.header('last-event-id'));
  return streamSSE(c, async (stream) => {
    let aborted = false;
    stream.onAbort(() => { aborted = true; });
    const cursor: Cursor = resume ?? {
      stored_us: (await databaseNowUs(sql)) - t.settle_ms * 1000, series_id: 0, scheduled_ms: 0, change_id: await lastStateChangeId(sql, monitor_id),
    };
    let series: SeriesRow[] = [];
    let series_at = 0;
    let last_write = Date.now();
    const write = async (event: string, data: unknown) => {
      await stream.writeSSE({ event, data: JSON.stringify(data), id: formatCursor(cursor) });
      last_write = Date.now();
    };

    while (!aborted) {
      if (Date.now() - series_at >= SERIES_REFRESH_MS) {
        series = await monitorSeries(sql, monitor_id);
        series_at = Date.now();
      }
      const nodeOf = new Map(series.map((s) => [s.id, s.node_id]));
      for (;;) {
        const rows = await checksStoredAfter(sql, series.map((s) => s.id), cursor, t.settle_ms, t.window_ms, BATCH);
        for (const r of rows) {
          Object.assign(cursor, { stored_us: Number(r.stored_us), series_id: r.series_id, scheduled_ms: r.scheduled_at.getTime() });
          await write('check', signUrls(toCheckItem(monitor_id, nodeOf.get(r.series_id) ?? null, r)));
        }
        if (rows.length < BATCH || aborted) break;
      }
      for (const ch of await stateChangesAfter(sql, monitor_id, cursor.change_id, BATCH)) {
        cursor.change_id = ch.id;
        await write('state_change', toStateChange(ch));
      }
      if (aborted) break;
      if (Date.now() - last_write >= t.keepalive_ms) {
        await stream.write(': keepalive\n\n');
        last_write = Date.now();
      }
      await stream.sleep(t.poll_ms);
    }
  });
}
