import { useState } from 'preact/hooks';
import type { Incident } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { INCIDENT_IMPACT_LIST } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { IncidentScope } from '../../components/IncidentScope.js';
import { Refusal } from '../../components/Refusal.js';
import { t } from '../../i18n/i18n.js';

/** Change an incident's title, impact, status pages and affected components (PATCH /v1/incidents/{id}; its status moves through updates). */
export function IncidentEdit({ path, incident, saved }: { path: string; incident: Incident; saved: () => void }) {
  const [title, setTitle] = useState(incident.title);
  const [impact, setImpact] = useState(incident.impact);
  const [pageIds, setPageIds] = useState(incident.status_page_ids);
  const [componentIds, setComponentIds] = useState(incident.component_ids);
  const { busy, error, submit } = useSubmit(async () => {
    await api('PATCH', path, { title, impact, status_page_ids: pageIds, component_ids: componentIds });
    saved();
  });
  return (
    <details class="edit">
      <summary>{t('inc.edit')}</summary>
      <form onSubmit={submit} class="narrow">
        <Field id="edit-title" label={t('inc.incident_title')}><input id="edit-title" required maxLength={200} value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} /></Field>
        <Field id="edit-impact" label={t('inc.impact')}>
          <select id="edit-impact" value={impact} onChange={(e) => setImpact((e.target as HTMLSelectElement).value as typeof impact)}>
            {INCIDENT_IMPACT_LIST.map((s) => <option key={s} value={s}>{t(`inc.impact.${s}`)}</option>)}
          </select>
        </Field>
        <IncidentScope id="inc-edit" pageIds={pageIds} componentIds={componentIds} onChange={(p, c) => { setPageIds(p); setComponentIds(c); }} />
        <Refusal id="edit-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('inc.save')}</button>
      </form>
    </details>
  );
}
