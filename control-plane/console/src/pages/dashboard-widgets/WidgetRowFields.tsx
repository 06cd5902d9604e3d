import type { Monitor } from '@vantage/shared-protocol';
import { METRICS_OF_TYPE, WIDGET_TYPE_LIST, type Metric } from '../../api/vocabulary.js';
import { t } from '../../i18n/i18n.js';
import { defaultMetric, kindOf, needsMonitors, takesMonitors, type WidgetRow } from './widget-rows.js';

const str = (e: Event) => (e.target as HTMLInputElement).value;
const POSITION = ['x', 'y', 'w', 'h'] as const;

/**
 * One widget of the editor: type, title, what it shows (the metrics its type can draw), the
 * monitors it names, the owner's nodes only, its grid cell, and its options as JSON
 * (docs/api/dashboards.md "Widget types"). Every control is labelled with the widget's number;
 * `refused` lists the API's messages about this widget, shown in it.
 */
export function WidgetRowFields({ row: r, n, monitors, columns, fault, refused, onChange, onRemove }: {
  row: WidgetRow; n: number; monitors: Monitor[]; columns: number; fault: boolean; refused: string[]; onChange: (p: Partial<WidgetRow>) => void; onRemove: () => void;
}) {
  const id = `w${r.key}`;
  const setType = (type: WidgetRow['type']) => {
    const allowed = METRICS_OF_TYPE[type] as readonly Metric[];
    onChange({ type, metric: r.metric && allowed.includes(r.metric) ? r.metric : defaultMetric(type), options: type === 'text' || r.type === 'text' ? '' : r.options });
  };
  return (
    <fieldset class="widget-row">
      <legend>{t('dash.widget_n', { n, title: r.title || t(`dash.type.${r.type}`) })}</legend>
      <div class="inline wrap-row">
        <div class="field"><label for={`${id}-type`}>{t('dash.widget_type')}</label>
          <select id={`${id}-type`} value={r.type} onChange={(e) => setType(str(e) as WidgetRow['type'])}>
            {WIDGET_TYPE_LIST.map((ty) => <option key={ty} value={ty}>{t(`dash.type.${ty}`)}</option>)}
          </select>
        </div>
        <div class="field"><label for={`${id}-title`}>{t('dash.widget_title')}</label>
          <input id={`${id}-title`} maxLength={200} value={r.title} onInput={(e) => onChange({ title: str(e) })} />
        </div>
        {r.type !== 'text' && (
          <div class="field"><label for={`${id}-metric`}>{t('dash.metric')}</label>
            <select id={`${id}-metric`} value={r.metric} onChange={(e) => onChange({ metric: str(e) as Metric })}>
              {(METRICS_OF_TYPE[r.type] as readonly Metric[]).map((m) => <option key={m} value={m}>{t(`dash.metric.${m}`)}</option>)}
            </select>
          </div>
        )}
        {POSITION.map((p) => (
          <div class="field small" key={p}><label for={`${id}-${p}`}>{t(`dash.pos.${p}`)}</label>
            <input id={`${id}-${p}`} type="number" required min={p === 'w' || p === 'h' ? 1 : 0} max={p === 'x' ? columns - 1 : p === 'w' ? columns : p === 'h' ? 48 : 1000} value={r[p]} onInput={(e) => onChange({ [p]: str(e) })} />
          </div>
        ))}
      </div>
      {r.metric && r.type !== 'text' && takesMonitors(r.metric) && (
        <div class="field"><label for={`${id}-monitors`}>{needsMonitors(r.metric) ? t('dash.monitors_required') : t('dash.monitors_optional')}</label>
          <select id={`${id}-monitors`} multiple size={Math.min(6, Math.max(2, monitors.length))} required={needsMonitors(r.metric)}
            onChange={(e) => onChange({ monitor_ids: [...(e.target as HTMLSelectElement).selectedOptions].map((o) => o.value) })}>
            {monitors.map((m) => <option key={m.id} value={m.id} selected={r.monitor_ids.includes(m.id)}>{m.name}</option>)}
          </select>
        </div>
      )}
      {r.metric && r.type !== 'text' && kindOf(r.metric) === 'node' && (
        <label class="check"><input type="checkbox" checked={r.mine} onChange={(e) => onChange({ mine: (e.target as HTMLInputElement).checked })} />{t('dash.mine')}</label>
      )}
      <div class="field"><label for={`${id}-options`}>{r.type === 'text' ? t('dash.options_text') : t('dash.options')}</label>
        <textarea id={`${id}-options`} rows={r.type === 'text' ? 4 : 2} aria-invalid={fault ? 'true' : undefined} aria-describedby={`${id}-options-hint`} value={r.options} onInput={(e) => onChange({ options: str(e) })} />
        <p class="hint" id={`${id}-options-hint`}>{t(`dash.options_hint.${r.type}`)}</p>
        {fault && <p class="field-error">{t('dash.options_invalid')}</p>}
      </div>
      {refused.length > 0 && <ul class="field-error" role="alert">{refused.map((m) => <li key={m}>{m}</li>)}</ul>}
      <button type="button" class="danger" onClick={onRemove}>{t('dash.remove_widget', { n })}</button>
    </fieldset>
  );
}
