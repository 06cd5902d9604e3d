import { formatTime, t } from '../../i18n/i18n.js';
import { figureOf, formatValue, num, rows, sliceLabel, str } from './read.js';
import type { WidgetProps } from './types.js';

/** A stat widget: one figure (uptime %, a latency statistic in ms, a count) with its unit, big. */
export function StatWidget({ widget, data }: WidgetProps) {
  const o = widget.options as { decimals?: number; unit_label?: string };
  return <p class="big-figure">{formatValue(num(data.value), str(data.unit), o.decimals, o.unit_label)}</p>;
}

/** A gauge: the figure on a native `<meter>` between `min` and `max` (default 0-100 for percent), thresholds as its low and high marks. */
export function GaugeWidget({ widget, data }: WidgetProps) {
  const o = widget.options as { min?: number; max?: number; thresholds?: number[] };
  const unit = str(data.unit);
  const value = num(data.value);
  const total = num(data.total);
  const min = o.min ?? 0;
  const max = o.max ?? (unit === 'percent' ? 100 : total ?? Math.max(value ?? 0, 1));
  const [low, high] = o.thresholds ?? [];
  return (
    <div class="gauge">
      <meter min={min} max={max} value={value ?? min} {...(low !== undefined ? { low } : {})} {...(high !== undefined ? { high, optimum: max } : {})} aria-label={widget.title || t('dash.gauge')} />
      <p class="big-figure">{formatValue(value, unit)}{total !== null && ` / ${total}`}</p>
    </div>
  );
}

/** A text widget: its Markdown source shown as plain text (line breaks kept; nothing is rendered as HTML). */
export function TextWidget({ widget }: WidgetProps) {
  return <div class="widget-text">{str((widget.options as { markdown?: string }).markdown)}</div>;
}

const HIDDEN = new Set(['id', 'monitor_id']);
/** The columns a table shows: the first row's fields that are shown as text (ids and nested objects left out). */
function columnsOf(list: Array<Record<string, unknown>>): string[] {
  const first = list[0] ?? {};
  return Object.keys(first).filter((k) => !HIDDEN.has(k) && (first[k] === null || typeof first[k] !== 'object'));
}
const cell = (k: string, v: unknown) => (typeof v === 'string' && /_at$/.test(k) ? formatTime(v) : typeof v === 'number' ? v.toLocaleString() : v === null ? '—' : str(v));

/** A table widget: one row per item of `data.rows` (monitors worst first, latency summaries, nodes, events, incidents), its fields as columns. */
export function TableWidget({ data }: WidgetProps) {
  const list = rows(data.rows);
  if (list.length === 0) return <p class="hint">{t('dash.no_rows')}</p>;
  const cols = columnsOf(list);
  return (
    <table class="widget-table">
        <thead><tr>{cols.map((c) => <th key={c} scope="col">{c.replace(/_/g, ' ')}</th>)}</tr></thead>
        <tbody>{list.map((r, i) => <tr key={i}>{cols.map((c) => <td key={c}>{cell(c, r[c])}</td>)}</tr>)}</tbody>
    </table>
  );
}

/** A bar widget: one bar per row (or slice), its length the figure over the largest, the figure written beside it. */
export function BarWidget({ widget, data }: WidgetProps) {
  const stat = str(data.stat) || 'p95';
  const items = (data.rows !== undefined ? rows(data.rows) : rows(data.slices)).map((r) => ({ name: sliceLabel(r), value: figureOf(r, stat) }));
  if (items.length === 0) return <p class="hint">{t('dash.no_rows')}</p>;
  const unit = str(data.unit);
  const max = Math.max(...items.map((i) => i.value ?? 0), unit === 'percent' ? 100 : 1);
  return (
    <ul class="bars" aria-label={widget.title || t('dash.bars')}>{items.map((i, n) => (
      <li key={n}>
        <span class="bar-name">{i.name}</span>
        <span class="bar-track" aria-hidden="true"><span class="bar-fill" style={{ width: `${((i.value ?? 0) / max) * 100}%` }} /></span>
        <span class="bar-value">{formatValue(i.value, unit === 'checks' ? '' : unit)}</span>
      </li>
    ))}</ul>
  );
}
