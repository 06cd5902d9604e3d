import type { Stats } from '@vantage/shared-protocol';
import { useApi } from '../api/use-api.js';
import { t } from '../i18n/i18n.js';

/** The median response time of `monitor_id` per hour over 24 hours (GET /v1/monitors/{id}/stats, hourly buckets), as a small SVG line. */
export function Sparkline({ monitor_id, name }: { monitor_id: string; name: string }) {
  const stats = useApi<Stats>(`/v1/monitors/${encodeURIComponent(monitor_id)}/stats?bucket_s=3600`);
  const values = stats.data?.buckets.map((b) => b.p50_ms) ?? [];
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) return <span class="muted">{stats.loading ? '…' : t('monitors.no_data')}</span>;
  const max = Math.max(...known, 1);
  const step = 100 / Math.max(values.length - 1, 1);
  // One path, broken where a bucket has no checks; a point standing alone is drawn as a short dash.
  let d = '';
  values.forEach((v, i) => {
    if (v === null) return;
    const xy = `${(i * step).toFixed(1)} ${(28 - (v / max) * 26).toFixed(1)}`;
    const joined = i > 0 && values[i - 1] !== null;
    d += joined ? ` L ${xy}` : ` M ${xy}`;
    if (!joined && (i === values.length - 1 || values[i + 1] === null)) d += i === 0 ? ' h 3' : ' h -3';
  });
  return (
    <svg class="spark" viewBox="0 0 100 30" preserveAspectRatio="none" role="img" aria-label={t('monitors.sparkline', { name })}>
      <path d={d.trim()} fill="none" stroke="currentColor" stroke-width="2" vector-effect="non-scaling-stroke" />
    </svg>
  );
}
