import { useEffect, useRef, useState } from 'preact/hooks';
import type { Postmortem } from '@vantage/shared-protocol';
import { ApiFailure, api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { Refusal } from '../../components/Refusal.js';
import { ErrorState, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';

/**
 * The incident's postmortem (GET/PUT /v1/incidents/{id}/postmortem, docs/api/status-pages.md
 * "Postmortems"): Markdown, saved as a draft or published (shown on the incident's pages);
 * none yet (404 POSTMORTEM_NOT_FOUND) starts an empty draft.
 */
export function PostmortemEditor({ path }: { path: string }) {
  const saved = useApi<Postmortem>(`${path}/postmortem`);
  const missing = saved.error instanceof ApiFailure && saved.error.code === 'POSTMORTEM_NOT_FOUND';
  const [body, setBody] = useState('');
  const [current, setCurrent] = useState<Postmortem | null>(null);
  useEffect(() => { if (saved.data) { setCurrent(saved.data); setBody(saved.data.body_md); } }, [saved.data]);
  // Which of the two submit buttons was pressed (set on click, before the submit runs).
  const wanted = useRef<'draft' | 'published'>('draft');
  const { busy, error, submit } = useSubmit(async () => {
    setCurrent(await api<Postmortem>('PUT', `${path}/postmortem`, { body_md: body, status: wanted.current }));
  });
  if (saved.error && !missing) return <ErrorState error={saved.error} retry={saved.reload} />;
  // A saved postmortem is shown once it has filled the editor (current), never as an empty body.
  if (!missing && !current) return <Loading />;
  return (
    <>
      <h2>{t('pm.title')}</h2>
      <p class="hint" role="status">{current
        ? (current.status === 'published' ? t('pm.published_at', { at: formatTime(current.published_at) }) : t('pm.draft_saved', { at: formatTime(current.updated_at) }))
        : t('pm.none')}</p>
      <form onSubmit={submit}>
        <Field id="pm-body" label={t('pm.body')} hint={t('pm.body_hint')}>
          <textarea id="pm-body" rows={10} maxLength={30000} aria-describedby="pm-body-hint" value={body} onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)} />
        </Field>
        <Refusal id="pm-error" error={error} />
        <div class="actions">
          <button type="submit" disabled={busy} onClick={() => { wanted.current = 'draft'; }}>{t('pm.save_draft')}</button>
          <button type="submit" class="primary" disabled={busy} onClick={() => { wanted.current = 'published'; }}>{t('pm.publish')}</button>
        </div>
      </form>
    </>
  );
}
