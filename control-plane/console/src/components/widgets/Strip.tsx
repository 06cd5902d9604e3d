import { formatTime, t } from '../../i18n/i18n.js';
import { formatValue, nameOf, num, rows, str } from './read.js';
import type { WidgetProps } from './types.js';

/** The level of an uptime cell: up from 99.9 %, degraded from 99 %, else down; no data without a figure. */
const uptimeLevel = (v: number | null) => (v === null ? 'no_data' : v >= 99.9 ? 'up' : v >= 99 ? 'degraded' : 'down');

/**
 * A status strip or heatmap: one row per series (monitor), one cell per bucket. Uptime cells are
 * coloured by level; latency cells (heatmap) by their share of the largest value. Each row is one
 * labelled image for screen readers (its name and the range of its figures); a cell's tooltip
 * gives its bucket and figure.
 */
export function StripWidget({ widget, data }: WidgetProps) {
  const series = rows(data.series);
  const buckets = Array.isArray(data.buckets) ? (data.buckets as unknown[]).map(str) : [];
  const unit = str(data.unit);
  if (series.length === 0) return <p class="hint">{t('dash.no_rows')}</p>;
  const all = series.flatMap((s) => (Array.isArray(s.values) ? (s.values as unknown[]).map(num) : []));
  const max = Math.max(...all.map((v) => v ?? 0), 1);
  return (
    <ul class="strips">{series.map((s, i) => {
      const values = Array.isArray(s.values) ? (s.values as unknown[]).map(num) : [];
      const known = values.filter((v): v is number => v !== null);
      const summary = known.length === 0 ? t('dash.no_data')
        : t('dash.strip_summary', { min: formatValue(Math.min(...known), unit), max: formatValue(Math.max(...known), unit), n: known.length, of: values.length });
      return (
        <li key={i}>
          <span class="strip-name">{nameOf(s)}</span>
          <span class="strip" role="img" aria-label={`${nameOf(s)}: ${summary}`}>{values.map((v, j) => {
            const level = unit === 'percent' ? `level-${uptimeLevel(v)}` : v === null ? 'level-no_data' : `heat-${Math.min(4, Math.floor((v / max) * 5))}`;
            return <span key={j} class={`cell ${level}`} title={`${formatTime(buckets[j] ?? null)}: ${formatValue(v, unit)}`} />;
          })}</span>
        </li>
      );
    })}</ul>
  );
}
