import { useState } from 'preact/hooks';
import type { Incident } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { INCIDENT_IMPACT_LIST, INCIDENT_STATUS_LIST } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { IncidentScope } from '../../components/IncidentScope.js';
import { Refusal } from '../../components/Refusal.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { keptTeam, teamBody } from '../../api/team-scope.js';

const str = (e: Event) => (e.target as HTMLInputElement).value;

/** Report an incident (POST /v1/incidents): title, status, impact, the first update's message, its status pages and affected components; opens its page. */
export function IncidentForm({ preselect }: { preselect: string | null }) {
  const [title, setTitle] = useState('');
  const [status, setStatus] = useState<(typeof INCIDENT_STATUS_LIST)[number]>('investigating');
  const [impact, setImpact] = useState<(typeof INCIDENT_IMPACT_LIST)[number]>('minor');
  const [message, setMessage] = useState('');
  const [pageIds, setPageIds] = useState<string[]>(preselect ? [preselect] : []);
  const [componentIds, setComponentIds] = useState<string[]>([]);
  const { busy, error, submit } = useSubmit(async () => {
    const made = await api<Incident>('POST', '/v1/incidents', { title, status, impact, message, status_page_ids: pageIds, component_ids: componentIds, ...teamBody(keptTeam()) });
    navigate(`/incidents/${made.id}`);
  });
  return (
    <>
      <h2>{t('inc.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="inc-title" label={t('inc.incident_title')}><input id="inc-title" required maxLength={200} value={title} onInput={(e) => setTitle(str(e))} /></Field>
        <div class="inline">
          <Field id="inc-status" label={t('events.status')}>
            <select id="inc-status" value={status} onChange={(e) => setStatus(str(e) as typeof status)}>
              {INCIDENT_STATUS_LIST.map((s) => <option key={s} value={s}>{t(`inc.status.${s}`)}</option>)}
            </select>
          </Field>
          <Field id="inc-impact" label={t('inc.impact')}>
            <select id="inc-impact" value={impact} onChange={(e) => setImpact(str(e) as typeof impact)}>
              {INCIDENT_IMPACT_LIST.map((s) => <option key={s} value={s}>{t(`inc.impact.${s}`)}</option>)}
            </select>
          </Field>
        </div>
        <Field id="inc-message" label={t('inc.first_message')}>
          <textarea id="inc-message" rows={3} maxLength={10000} value={message} onInput={(e) => setMessage(str(e))} />
        </Field>
        <IncidentScope id="inc-new" pageIds={pageIds} componentIds={componentIds} onChange={(p, c) => { setPageIds(p); setComponentIds(c); }} />
        <Refusal id="inc-form-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('inc.create')}</button>
      </form>
    </>
  );
}
