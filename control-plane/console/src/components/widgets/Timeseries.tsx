import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { t } from '../../i18n/i18n.js';
import { nameOf, num, rows, str } from './read.js';
import type { WidgetProps } from './types.js';

const COLOURS = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777'];

/**
 * A timeseries widget drawn by uPlot: one line per series (monitor or node) over the buckets the
 * API answered (its rollups, never raw rows); the figure is labelled and uPlot's legend is text.
 */
export function TimeseriesWidget({ widget, data }: WidgetProps) {
  const box = useRef<HTMLElement>(null);
  const series = rows(data.series);
  const unit = str(data.unit);
  useEffect(() => {
    if (!box.current || series.length === 0) return;
    const el = box.current;
    const xs = (Array.isArray(data.buckets) ? (data.buckets as unknown[]) : []).map((b) => Date.parse(str(b)) / 1000);
    const ys = series.map((s) => (Array.isArray(s.values) ? (s.values as unknown[]).map(num) : []));
    const size = () => ({ width: Math.max(200, el.clientWidth), height: Math.max(120, el.clientHeight - 40) });
    const plot = new uPlot({
      ...size(),
      series: [{}, ...series.map((s, i) => ({ label: nameOf(s), stroke: COLOURS[i % COLOURS.length], width: 1.5, spanGaps: false, points: { show: true, size: 4 } }))],
      axes: [{ stroke: 'currentColor' }, { stroke: 'currentColor', label: unit === 'percent' ? '%' : unit }],
      scales: { x: { time: true } },
    }, [xs, ...ys] as uPlot.AlignedData, el);
    const observer = new ResizeObserver(() => plot.setSize(size()));
    observer.observe(el);
    return () => { observer.disconnect(); plot.destroy(); };
  }, [data]);
  if (series.length === 0) return <p class="hint">{t('dash.no_rows')}</p>;
  return <figure class="ts" ref={box} aria-label={t('dash.chart_of', { title: widget.title || t('dash.chart'), series: series.map(nameOf).join(', ') })} />;
}
