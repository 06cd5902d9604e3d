import type { Monitor } from '@vantage/shared-protocol';
import { useApi } from '../api/use-api.js';
import { t } from '../i18n/i18n.js';
import { Field } from './Field.js';
import { Link } from './Link.js';

type MonitorPage = { items: Monitor[] };

/**
 * A labelled choice of one of the caller's monitors (the first 100 by name from GET /v1/monitors);
 * `anyLabel` adds a first option with the value '' (e.g. "All monitors").
 */
export function MonitorSelect({ id, label, value, onChange, anyLabel }: { id: string; label: string; value: string; onChange: (id: string) => void; anyLabel?: string }) {
  const monitors = useApi<MonitorPage>('/v1/monitors?limit=100');
  return (
    <Field id={id} label={label}>
      <select id={id} required={!anyLabel} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {anyLabel ? <option value="">{anyLabel}</option> : <option value="" disabled>{monitors.data ? t('alerting.pick_monitor') : t('state.loading')}</option>}
        {monitors.data?.items.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
      </select>
    </Field>
  );
}

/** A monitor's name, read from GET /v1/monitors/{id} and linked to its page (the id while loading or when it is gone). */
export function MonitorName({ monitor_id }: { monitor_id: string }) {
  const monitor = useApi<Monitor>(`/v1/monitors/${encodeURIComponent(monitor_id)}`);
  return <Link href={`/monitors/${monitor_id}`}>{monitor.data?.name ?? monitor_id}</Link>;
}
