/*
 * Readers of a widget's `data` (docs/api/dashboards.md "Widget data"). The API types `data` as a
 * record whose shape depends on the widget type and metric, so each renderer reads the fields it
 * draws through these checks: a field that is missing or of another type reads as null or empty.
 */

import { t, type MessageKey } from '../../i18n/i18n.js';

/** A field as a finite number, else null. */
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
/** A field as an array (of records), else empty. */
export const rows = (v: unknown): Array<Record<string, unknown>> => (Array.isArray(v) ? v.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null) : []);
/** A field as a string, else ''. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));

/** A series' or row's name: a monitor's `name`, else a node (`node_id`, with `country`), else `label`. */
export function nameOf(r: Record<string, unknown>): string {
  if (typeof r.name === 'string') return r.name;
  if (typeof r.node_id === 'string') return r.country ? `${r.node_id} (${str(r.country)})` : r.node_id;
  if (r.node_id === null && 'node_id' in r) return '—';
  return str(r.label);
}

/** The figure a row stands for: its uptime percent, else the latency statistic `stat` (`p95_ms`…), else its `value`, else its checks. */
export function figureOf(r: Record<string, unknown>, stat: string): number | null {
  return num(r.uptime_percent) ?? num(r[`${stat}_ms`]) ?? num(r.value) ?? num(r.checks);
}

/** `value` with its unit (`ms`, `percent` as %, counts bare), `decimals` places when given. */
export function formatValue(value: number | null, unit: string, decimals?: number, unitLabel?: string): string {
  if (value === null) return '—';
  const places = decimals ?? (unit === 'percent' ? 3 : unit === 'ms' ? 0 : 0);
  const shown = value.toLocaleString(undefined, { minimumFractionDigits: places, maximumFractionDigits: places });
  const suffix = unitLabel ?? (unit === 'percent' ? '%' : unit === 'ms' ? 'ms' : unit === 's' ? 's' : '');
  return suffix ? `${shown} ${suffix}` : shown;
}

/** Slice labels the API sends (states, event and incident statuses, node status). */
const SLICE_LABELS = new Set(['up', 'degraded', 'down', 'maintenance', 'no_data', 'firing', 'acknowledged', 'resolved', 'open', 'online', 'offline']);
/** A donut slice's or bar's label: one the API sends translated, else the row's name (a node id). */
export const sliceLabel = (r: Record<string, unknown>): string => (typeof r.label === 'string' && SLICE_LABELS.has(r.label) ? t(`dash.slice.${r.label}` as MessageKey) : nameOf(r));
