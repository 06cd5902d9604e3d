import type { Monitor } from '@vantage/shared-protocol';
import type { ApiClient } from '../../as-code/client.js';
import { EXIT, VantageUsageError, type VantageIo } from './io.js';
import { renderTable } from './table.js';

/**
 * `vantage monitors list|pause|resume|delete`: the monitors as a table (or JSON), or one action on
 * a monitor by id. Monitors applied from files are marked `file` in the list.
 */
export async function monitorsCommand(io: VantageIo, api: ApiClient, action: string | undefined, id: string | undefined, opts: { json: boolean }): Promise<number> {
  if (!action || action === 'list') {
    const all: Monitor[] = [];
    for (let page = 1; ; page++) {
      const res = await api.get<{ items: Monitor[]; total: number }>(`/v1/monitors?limit=100&page=${page}`);
      all.push(...res.items);
      if (res.items.length < 100 || all.length >= res.total) break;
    }
    if (opts.json) { io.out(JSON.stringify(all, null, 2)); return EXIT.ok; }
    const marks = new Map((await api.get<{ items: Array<{ resource_id: string; source_file: string }> }>('/v1/as-code/marks?kind=monitor')).items.map((m) => [m.resource_id, m.source_file]));
    io.out(renderTable(['id', 'name', 'type', 'target', 'interval s', 'state', 'uptime 24h', 'file'], all.map((m) => [
      m.id, m.name, m.type, m.target, m.interval_s, m.status === 'paused' ? 'paused' : m.state,
      m.uptime_24h === null ? null : `${(m.uptime_24h * 100).toFixed(2)}%`, marks.get(m.id) ?? null,
    ])));
    return EXIT.ok;
  }
  if (!['pause', 'resume', 'delete'].includes(action)) throw new VantageUsageError(`unknown monitors action "${action}" (list, pause, resume, delete)`);
  if (!id) throw new VantageUsageError(`monitors ${action} needs a monitor id`);
  const path = `/v1/monitors/${encodeURIComponent(id)}`;
  if (action === 'delete') await api.delete(path);
  else {
    const res = await api.post<{ id: string; status: string; state: string }>(`${path}/${action}`);
    if (opts.json) { io.out(JSON.stringify(res)); return EXIT.ok; }
  }
  if (opts.json) io.out(JSON.stringify({ id, deleted: true }));
  else io.out(`${action === 'delete' ? 'deleted' : `${action}d`} ${id}`);
  return EXIT.ok;
}

interface AlertEvent { id: string; monitor_id: string; type?: string; status: string; started_at: string; resolved_at: string | null; acknowledged_at: string | null }

/**
 * `vantage events tail`: print alert events (docs/api/alerting.md "Alert events") as they appear
 * or change status, polling GET /v1/alert-events every `interval_s`, one line (or one JSON
 * object) per event and change. Stops on SIGINT, or after the first poll with `once`.
 */
export async function eventsTailCommand(io: VantageIo, api: ApiClient, opts: { json: boolean; interval_s: number; once: boolean }): Promise<number> {
  const seen = new Map<string, string>();
  while (!io.signal?.aborted) {
    const { items } = await api.get<{ items: AlertEvent[] }>('/v1/alert-events');
    for (const e of [...items].reverse()) {
      const version = `${e.status}|${e.acknowledged_at}|${e.resolved_at}`;
      if (seen.get(e.id) === version) continue;
      seen.set(e.id, version);
      if (opts.json) io.out(JSON.stringify(e));
      else io.out(`${e.resolved_at ?? e.acknowledged_at ?? e.started_at}  ${e.status.padEnd(12)} ${(e.type ?? '').padEnd(8)} monitor ${e.monitor_id}  event ${e.id}`);
    }
    if (opts.once) break;
    try { await io.sleep(opts.interval_s * 1000, io.signal); } catch { break; }
  }
  return EXIT.ok;
}
