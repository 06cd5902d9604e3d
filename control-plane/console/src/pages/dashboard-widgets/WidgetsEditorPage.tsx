import { useState } from 'preact/hooks';
import type { AsCodeMark, Dashboard, Monitor } from '@vantage/shared-protocol';
import { ApiFailure, api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useMarks } from '../../api/use-marks.js';
import { useSubmit } from '../../api/use-submit.js';
import { WIDGET_TYPE_LIST } from '../../api/vocabulary.js';
import { Conflict } from '../../components/Conflict.js';
import { Link } from '../../components/Link.js';
import { LockedFields, ManagedNote } from '../../components/managed/Managed.js';
import { ErrorState, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { LayoutGrid } from './LayoutGrid.js';
import { WidgetRowFields } from './WidgetRowFields.js';
import { firstFreeRow, newRow, rowOf, widgetOf, type WidgetRow } from './widget-rows.js';

/**
 * The widget set of a dashboard, edited whole and saved with PUT /v1/dashboards/{id}/widgets and
 * the version it was read at (`expected_version`): if it was changed elsewhere since, the save is
 * refused (409 CONFLICT) and the page says so, with a reload. docs/api/dashboards.md "Widgets".
 * The grid above the fields moves and resizes widgets by pointer or keyboard (LayoutGrid). A
 * dashboard applied from a file is shown read-only (docs/api/as-code.md "Marks").
 */
export default function WidgetsEditorPage({ params }: { params: Record<string, string> }) {
  const dashboard = useApi<Dashboard>(`/v1/dashboards/${encodeURIComponent(params.id!)}`);
  const markOf = useMarks('dashboard');
  if (dashboard.error) return <ErrorState error={dashboard.error} retry={dashboard.reload} />;
  if (!dashboard.data) return <Loading />;
  return <Editor key={dashboard.data.version} dashboard={dashboard.data} mark={markOf(dashboard.data.id)} reload={dashboard.reload} />;
}

function Editor({ dashboard: d, mark, reload }: { dashboard: Dashboard; mark: AsCodeMark | null; reload: () => void }) {
  const monitors = useApi<{ items: Monitor[] }>('/v1/monitors?limit=100');
  const [rows, setRows] = useState<WidgetRow[]>(() => (d.widgets ?? []).map(rowOf));
  const [faults, setFaults] = useState<Set<number>>(new Set());
  const [adding, setAdding] = useState<WidgetRow['type']>('stat');
  const { busy, error, setError, submit } = useSubmit(async () => {
    const made = rows.map((r) => ({ r, out: widgetOf(r) }));
    const bad = new Set(made.filter((m) => 'fault' in m.out).map((m) => m.r.key));
    setFaults(bad);
    if (bad.size > 0) { setError(new Error(t('dash.fix_widgets'))); return; }
    const widgets = made.map((m) => ('widget' in m.out ? m.out.widget : null));
    await api('PUT', `/v1/dashboards/${encodeURIComponent(d.id)}/widgets`, { widgets, expected_version: d.version });
    navigate(`/dashboards/${d.id}`);
  });
  // Messages are placed by widget index: a row added or removed clears them (setError(null) below).
  const refused = refusedByWidget(error);
  const change = (key: number, patch: Partial<WidgetRow>) => setRows((all) => all.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <section>
      <p><Link href={`/dashboards/${d.id}`}>{t('dash.back_to', { name: d.name })}</Link></p>
      <h1>{t('dash.edit_title', { name: d.name })}</h1>
      <p class="hint">{t('dash.edit_intro', { columns: d.layout.columns, version: d.version })}</p>
      {monitors.error && <ErrorState error={monitors.error} retry={monitors.reload} />}
      <ManagedNote mark={mark} />
      <form onSubmit={submit}>
        <LockedFields mark={mark}>
          {rows.length > 0 && <LayoutGrid rows={rows} columns={d.layout.columns} locked={mark !== null} onMove={(key, c) => change(key, { x: String(c.x), y: String(c.y), w: String(c.w), h: String(c.h) })} />}
          {rows.length === 0 && <p class="state empty">{t('dash.editor_empty')}</p>}
          {rows.map((r, i) => (
            <WidgetRowFields key={r.key} row={r} n={i + 1} monitors={monitors.data?.items ?? []} columns={d.layout.columns} fault={faults.has(r.key)} refused={refused.get(i) ?? []}
              onChange={(p) => change(r.key, p)} onRemove={() => { setError(null); setRows(rows.filter((x) => x.key !== r.key)); }} />
          ))}
          <div class="inline add-widget">
            <div class="field"><label for="add-type">{t('dash.add_type')}</label>
              <select id="add-type" value={adding} onChange={(e) => setAdding((e.target as HTMLSelectElement).value as WidgetRow['type'])}>
                {WIDGET_TYPE_LIST.map((ty) => <option key={ty} value={ty}>{t(`dash.type.${ty}`)}</option>)}
              </select>
            </div>
            <button type="button" disabled={rows.length >= 50} onClick={() => { setError(null); setRows([...rows, newRow(adding, firstFreeRow(rows), d.layout.columns)]); }}>{t('dash.add_widget')}</button>
          </div>
          <Conflict id="widgets-error" error={error} reload={reload} />
          <button type="submit" class="primary" disabled={busy}>{t('dash.save_widgets')}</button>
        </LockedFields>
      </form>
    </section>
  );
}

/**
 * The API's refusal (400 VALIDATION_FAILED, `details.fields[]` with paths such as
 * `widgets[2].options.decimals`) split by widget index, so each message shows in its widget;
 * the path inside the widget is kept with the message.
 */
function refusedByWidget(error: unknown): Map<number, string[]> {
  const out = new Map<number, string[]>();
  if (!(error instanceof ApiFailure)) return out;
  for (const f of (error.details?.fields as Array<{ path: string; message: string }> | undefined) ?? []) {
    const m = /^widgets\[(\d+)\]\.?(.*)$/.exec(f.path);
    if (!m) continue;
    const i = Number(m[1]);
    out.set(i, [...(out.get(i) ?? []), m[2] ? `${m[2]}: ${f.message}` : f.message]);
  }
  return out;
}
