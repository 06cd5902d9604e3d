import type { Monitor, MonitorGroup } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { ErrorState } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { rowKey, type ComponentRow } from './page-values.js';

/**
 * The page's components, in the order shown: each one monitor or group of the user (GET
 * /v1/monitors, GET /v1/monitor-groups), its display name (blank: the monitor's or group's) and
 * section heading; rows are added, moved up or down and removed with labelled buttons.
 */
export function ComponentRows({ rows, onChange }: { rows: ComponentRow[]; onChange: (rows: ComponentRow[]) => void }) {
  const monitors = useApi<{ items: Monitor[] }>('/v1/monitors?limit=100');
  const groups = useApi<MonitorGroup[]>('/v1/monitor-groups');
  const set = (i: number, patch: Partial<ComponentRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const move = (i: number, by: number) => {
    const next = [...rows];
    const [row] = next.splice(i, 1);
    next.splice(i + by, 0, row!);
    onChange(next);
  };
  const nameOf = (r: ComponentRow, i: number) => r.display_name || t('sp.component_n', { n: i + 1 });
  return (
    <fieldset class="rows">
      <legend>{t('sp.components')}</legend>
      {(monitors.error || groups.error) && <ErrorState error={monitors.error ?? groups.error} retry={() => { monitors.reload(); groups.reload(); }} />}
      {rows.length === 0 && <p class="hint">{t('sp.components_empty')}</p>}
      <ol class="component-rows">{rows.map((r, i) => (
        <li key={r.key} class="inline wrap-row">
          <div class="field">
            <label for={`spc-${r.key}-source`}>{t('sp.component_source')}</label>
            <select id={`spc-${r.key}-source`} required value={r.source} onChange={(e) => set(i, { source: (e.target as HTMLSelectElement).value })}>
              <option value="" disabled>{monitors.data ? t('sp.pick_source') : t('state.loading')}</option>
              <optgroup label={t('sp.monitors')}>{monitors.data?.items.map((m) => <option key={m.id} value={`m:${m.id}`}>{m.name}</option>)}</optgroup>
              <optgroup label={t('sp.groups')}>{groups.data?.map((g) => <option key={g.id} value={`g:${g.id}`}>{g.name}</option>)}</optgroup>
            </select>
          </div>
          <div class="field">
            <label for={`spc-${r.key}-name`}>{t('sp.display_name')}</label>
            <input id={`spc-${r.key}-name`} maxLength={200} value={r.display_name} onInput={(e) => set(i, { display_name: (e.target as HTMLInputElement).value })} />
          </div>
          <div class="field">
            <label for={`spc-${r.key}-section`}>{t('sp.section')}</label>
            <input id={`spc-${r.key}-section`} maxLength={100} value={r.section} onInput={(e) => set(i, { section: (e.target as HTMLInputElement).value })} />
          </div>
          <div class="actions">
            <button type="button" disabled={i === 0} aria-label={t('sp.move_up', { name: nameOf(r, i) })} onClick={() => move(i, -1)}>↑</button>
            <button type="button" disabled={i === rows.length - 1} aria-label={t('sp.move_down', { name: nameOf(r, i) })} onClick={() => move(i, 1)}>↓</button>
            <button type="button" class="danger" aria-label={t('sp.remove_component', { name: nameOf(r, i) })} onClick={() => onChange(rows.filter((_, j) => j !== i))}>{t('sp.remove')}</button>
          </div>
        </li>
      ))}</ol>
      <button type="button" disabled={rows.length >= 100} onClick={() => onChange([...rows, { key: rowKey(), source: '', display_name: '', section: '' }])}>{t('sp.add_component')}</button>
    </fieldset>
  );
}
