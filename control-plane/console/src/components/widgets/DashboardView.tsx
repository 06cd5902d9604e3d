import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { DashboardData, DashboardLayout, Widget } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Empty, ErrorState } from '../states.js';
import { t } from '../../i18n/i18n.js';
import { WidgetGrid, type Arrange } from './WidgetGrid.js';

/** Ranges offered, as the data call's relative `from` (docs/api/dashboards.md "Widget data"). */
const RANGES = ['-1h', '-24h', '-7d', '-30d', '-90d'] as const;

/**
 * A dashboard's widgets with their data over a chosen range (GET `{base}/data?from=…&to=now`,
 * `base` the owner's /v1/dashboards/{id} or the public /v1/public/dashboards/{token}); a failed
 * data call says so with a retry, a dashboard without widgets says how to add some (`empty`);
 * `arrange`: the widgets are being moved (WidgetGrid).
 */
export function DashboardView({ base, layout, widgets, empty, arrange }: { base: string; layout: DashboardLayout; widgets: Widget[]; empty: ComponentChildren; arrange?: Arrange }) {
  const [range, setRange] = useState<(typeof RANGES)[number]>('-24h');
  const data = useApi<DashboardData>(widgets.length ? `${base}/data?from=${range}&to=now` : null);
  if (widgets.length === 0) return <Empty>{empty}</Empty>;
  return (
    <>
      <div class="filters">
        <label>{t('dash.range')}
          <select value={range} onChange={(e) => setRange((e.target as HTMLSelectElement).value as typeof range)}>
            {RANGES.map((r) => <option key={r} value={r}>{t(`dash.range.${r}`)}</option>)}
          </select>
        </label>
        <button type="button" class="refresh" onClick={data.reload} disabled={data.loading}>{t('dash.refresh')}</button>
      </div>
      {data.error ? <ErrorState error={data.error} retry={data.reload} /> : <WidgetGrid layout={layout} widgets={widgets} data={data.data?.widgets ?? null} arrange={arrange} />}
    </>
  );
}
