import Table from 'cli-table3';
import type { Api } from './api.js';

/** A monitor as GET /v1/monitors lists it (docs/api/monitors.md "The monitor record"), the fields the table uses. */
export interface MonitorRow { id: string; name: string; type: string; target: string | null; state: string; node_ids: string[]; interval_s: number; last_check_at: string | null }
/** One stored check (docs/api/monitors.md "Checks"). */
export interface CheckRow { node_id: string | null; scheduled_at: string; success: boolean; response_ms: number | null; error: string | null; error_class: string | null }

/**
 * What the status table shows: the monitors, their nodes' names, and each node's check in the
 * monitor's latest judged round (the round its state comes from), so a row's state and its cells
 * always agree (a later round's checks wait until that round is judged).
 */
export interface StatusSnapshot {
  at: Date;
  monitors: MonitorRow[];
  node_names: Map<string, string>;
  /** monitor id → node id → that node's check in the monitor's latest judged round (`last_check_at`). */
  latest: Map<string, Map<string, CheckRow>>;
}

/** Read a snapshot through the public API: the monitor list, the node directory, the last two minutes of checks per monitor. */
export async function readStatus(api: Api, monitor_ids: string[]): Promise<StatusSnapshot> {
  const [{ items }, nodes] = await Promise.all([
    api.call<{ items: MonitorRow[] }>('GET', '/v1/monitors?limit=100'),
    api.call<{ items: Array<{ id: string; name: string }> }>('GET', '/v1/nodes?limit=100'),
  ]);
  const monitors = monitor_ids.map((id) => items.find((m) => m.id === id)).filter((m): m is MonitorRow => m !== undefined);
  const latest = new Map<string, Map<string, CheckRow>>();
  await Promise.all(monitors.map(async (m) => {
    const page = await api.call<{ items: CheckRow[] }>('GET', `/v1/monitors/${m.id}/checks?from=-2m&page_size=50`);
    const judged_ms = m.last_check_at ? Date.parse(m.last_check_at) : null;
    const by_node = new Map<string, CheckRow>();
    // The judged round's checks only: a later round's may already be in while it waits for its verdict.
    for (const c of page.items) if (c.node_id && judged_ms !== null && Date.parse(c.scheduled_at) === judged_ms) by_node.set(c.node_id, c);
    latest.set(m.id, by_node);
  }));
  return { at: new Date(), monitors, node_names: new Map(nodes.items.map((n) => [n.id, n.name])), latest };
}

const STATE_MARK: Record<string, string> = { up: '● up', down: '✖ DOWN', degraded: '◐ degraded', pending: '… pending', paused: '‖ paused', maintenance: '⚒ maint.', no_data: '? no data' };

/** One node's cell: its latest check, `✓ 1.23 ms` or `✗ <error>`, `–` before its first. */
function cell(c: CheckRow | undefined): string {
  if (!c) return '–';
  if (c.success) return `✓ ${c.response_ms === null ? '' : `${c.response_ms < 10 ? c.response_ms.toFixed(2) : c.response_ms.toFixed(1)} ms`}`.trim();
  let why = (c.error ?? c.error_class ?? 'failed').replace(/\s+/g, ' ');
  if (why.length > 28) why = why.replace(/ \([^)]*\)$/, ''); // "connection refused (ECONNREFUSED)" → "connection refused"
  return `✗ ${why.length > 28 ? `${why.slice(0, 27)}…` : why}`;
}

/** What changes the table's meaning: each monitor's state and latest judged round (not the latencies). */
export function statusKey(s: StatusSnapshot): string {
  return s.monitors.map((m) => `${m.id}:${m.state}:${m.last_check_at}`).join(' ');
}

/**
 * The monitor-by-node status table: one row per monitor (name, type, state, its latest judged
 * round), one column per node with that node's check
 * in the judged round (✓ and the response time, or ✗ and the error; `–` when it did not report);
 * `·` where the monitor is not placed on the node.
 */
export function renderStatus(s: StatusSnapshot): string {
  const node_ids = [...new Set(s.monitors.flatMap((m) => m.node_ids))].sort((a, b) => (s.node_names.get(a) ?? a).localeCompare(s.node_names.get(b) ?? b));
  const table = new Table({
    head: ['monitor', 'type', 'state', 'last round', ...node_ids.map((id) => s.node_names.get(id) ?? id.slice(0, 10))],
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const m of s.monitors) {
    const checks = s.latest.get(m.id);
    const last = m.last_check_at ? new Date(m.last_check_at).toISOString().slice(11, 19) : '–';
    table.push([m.name, m.type, STATE_MARK[m.state] ?? m.state, last, ...node_ids.map((n) => (m.node_ids.includes(n) ? cell(checks?.get(n)) : '·'))]);
  }
  return `monitors at ${s.at.toISOString().slice(11, 19)} UTC (rounds every ${s.monitors[0]?.interval_s ?? '?'} s; each node's check in the last judged round):\n${table.toString()}`;
}

/**
 * A block of text kept up to date on screen: on a terminal it is redrawn in place (cursor moved
 * up over the previous block) at every call; otherwise (a log, CI) the table is appended as a
 * snapshot only when its `key` changed (a state or a judged round), and the status line only when
 * its text changed, so a log gets one snapshot per round rather than one per poll.
 */
export class LiveView {
  #lines = 0;
  #last_key = '';
  #last_status = '';
  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {}

  get tty(): boolean {
    return this.out.isTTY === true;
  }

  /** Show `table` with `status` under it; `elapsed_s` is appended to the status on a terminal only. */
  show(table: string, key: string, status: string, elapsed_s?: number): void {
    if (this.tty) {
      const text = `${table}\n${status}${elapsed_s === undefined ? '' : ` (${elapsed_s.toFixed(0)} s)`}\n`;
      this.out.write(`${this.#lines ? `\x1b[${this.#lines}A` : ''}\x1b[0J${text}`);
      // Rows the text took on screen: a line wider than the terminal wraps onto more than one.
      const columns = this.out.columns || 80;
      this.#lines = text.split('\n').slice(0, -1).reduce((n, line) => n + Math.max(1, Math.ceil([...line].length / columns)), 0);
      return;
    }
    if (status !== this.#last_status) this.out.write(`… ${status}\n`);
    if (key !== this.#last_key) this.out.write(`${table}\n`);
    this.#last_key = key;
    this.#last_status = status;
  }

  /** Leave what is on screen as it is: later output goes below it (and the next table is shown in full). */
  release(): void {
    this.#lines = 0;
    this.#last_key = '';
    this.#last_status = '';
  }
}
