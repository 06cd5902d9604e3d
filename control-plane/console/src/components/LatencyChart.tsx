import { useEffect, useRef } from 'preact/hooks';
import type { Stats } from '@vantage/shared-protocol';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { t } from '../i18n/i18n.js';

/** Distinct line colours for up to eight series (then they repeat). */
const COLOURS = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777'];

/**
 * Median response time (ms) per bucket, one line per node (GET /v1/monitors/{id}/stats?group_by=node:
 * the API's rollups, never raw checks), drawn on a canvas by uPlot; the figure is labelled, and
 * uPlot's legend is text, since a canvas says nothing to a screen reader.
 */
export function LatencyChart({ stats }: { stats: Stats }) {
  const box = useRef<HTMLDivElement>(null);
  const groups = stats.groups?.length ? stats.groups : [{ node_id: null, country: null, overall: stats.overall, buckets: stats.buckets }];
  useEffect(() => {
    if (!box.current) return;
    const xs = stats.buckets.map((b) => Date.parse(b.start) / 1000);
    const series = groups.map((g) => {
      const byStart = new Map(g.buckets.map((b) => [b.start, b.p50_ms]));
      return stats.buckets.map((b) => byStart.get(b.start) ?? null);
    });
    const plot = new uPlot({
      width: Math.max(300, box.current.clientWidth),
      height: 260,
      series: [{}, ...groups.map((g, i) => ({ label: g.node_id ?? t('detail.overall'), stroke: COLOURS[i % COLOURS.length], width: 1.5, spanGaps: false, points: { show: true, size: 5 } }))],
      axes: [{ stroke: 'currentColor' }, { stroke: 'currentColor', label: 'ms' }],
      scales: { x: { time: true } },
    }, [xs, ...series] as uPlot.AlignedData, box.current);
    const resize = () => plot.setSize({ width: Math.max(300, box.current?.clientWidth ?? 300), height: 260 });
    addEventListener('resize', resize);
    return () => { removeEventListener('resize', resize); plot.destroy(); };
  }, [stats]);
  return <figure class="chart" aria-label={t('detail.latency')}><div ref={box} /></figure>;
}
