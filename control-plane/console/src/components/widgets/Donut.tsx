import { t } from '../../i18n/i18n.js';
import { formatValue, num, rows, sliceLabel, str } from './read.js';
import type { WidgetProps } from './types.js';

const COLOURS = ['#16a34a', '#ca8a04', '#dc2626', '#2563eb', '#6b7280', '#9333ea', '#0891b2', '#db2777'];

/**
 * A donut: each slice an arc of an SVG ring (decorative), and the legend (shown unless
 * `show_legend` is false, and always to screen readers) lists each slice's value and share.
 */
export function DonutWidget({ widget, data }: WidgetProps) {
  const slices = rows(data.slices).map((r) => ({ label: sliceLabel(r), value: num(r.value) ?? 0 }));
  const total = slices.reduce((n, s) => n + s.value, 0);
  const legend = (widget.options as { show_legend?: boolean }).show_legend !== false;
  const unit = str(data.unit);
  // Time by state reads best as shares; counts (events, nodes, checks) as counts with their share.
  const share = (v: number) => {
    const pct = total > 0 ? `${((v / total) * 100).toFixed(1)} %` : '';
    return unit === 's' ? pct || formatValue(v, 's') : `${formatValue(v, '')}${pct && ` (${pct})`}`;
  };
  let at = 0;
  return (
    <div class="donut">
      <svg viewBox="0 0 42 42" class="donut-ring" aria-hidden="true">
        <circle cx="21" cy="21" r="15.915" fill="none" stroke="var(--line)" stroke-width="6" />
        {total > 0 && slices.map((s, i) => {
          const share = (s.value / total) * 100;
          const arc = <circle key={i} cx="21" cy="21" r="15.915" fill="none" stroke={COLOURS[i % COLOURS.length]} stroke-width="6" stroke-dasharray={`${share} ${100 - share}`} stroke-dashoffset={`${25 - at}`} />;
          at += share;
          return arc;
        })}
      </svg>
      <ul class={legend ? 'legend' : 'legend sr-only'}>{slices.map((s, i) => (
        <li key={i}><span class="swatch" style={{ background: COLOURS[i % COLOURS.length] }} aria-hidden="true" />{s.label}: {share(s.value)}</li>
      ))}</ul>
      {total === 0 && <p class="hint">{t('dash.no_data')}</p>}
    </div>
  );
}
