import { useState } from 'preact/hooks';
import type { AsCodeMark, StatusPage } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useMarks } from '../../api/use-marks.js';
import { useSubmit } from '../../api/use-submit.js';
import { Link } from '../../components/Link.js';
import { LockedFields, lockedBy, ManagedNote } from '../../components/managed/Managed.js';
import { Refusal } from '../../components/Refusal.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { ComponentRows } from './ComponentRows.js';
import { DomainCheck } from './DomainCheck.js';
import { Subscribers } from './Subscribers.js';
import { PageFields } from './PageFields.js';
import { bodyOf, emptyValues, valuesOf, type PageValues } from './page-values.js';
import { keptTeam, teamBody } from '../../api/team-scope.js';

/**
 * A status page's form (docs/api/status-pages.md "Status pages"): `/status-pages/new` creates
 * one (POST /v1/status-pages) and opens its page; `/status-pages/{id}` edits it (PATCH, the
 * components sent whole), checks its custom domain's CNAME (POST …/domain-check), links to the
 * public page and deletes it. A page applied from a file (`mark`) is shown read-only, its delete
 * disabled (docs/api/as-code.md "Marks"); incidents and the domain check stay usable.
 */
export default function StatusPageFormPage({ params }: { params: Record<string, string> }) {
  const id = params.id ?? null;
  const page = useApi<StatusPage>(id ? `/v1/status-pages/${encodeURIComponent(id)}` : null);
  const markOf = useMarks(id ? 'status_page' : null);
  if (!id) return <PageForm saved={null} mark={null} />;
  if (page.error) return <ErrorState error={page.error} retry={page.reload} />;
  if (!page.data) return <Loading />;
  return <PageForm key={page.data.updated_at} saved={page.data} mark={markOf(page.data.id)} />;
}

function PageForm({ saved, mark }: { saved: StatusPage | null; mark: AsCodeMark | null }) {
  const [values, setValues] = useState<PageValues>(() => (saved ? valuesOf(saved) : emptyValues()));
  const [current, setCurrent] = useState(saved);
  const [done, setDone] = useState(false);
  const set = (patch: Partial<PageValues>) => { setDone(false); setValues((v) => ({ ...v, ...patch })); };
  const { busy, error, submit } = useSubmit(async () => {
    if (!current) {
      const made = await api<StatusPage>('POST', '/v1/status-pages', { ...bodyOf(values), ...teamBody(keptTeam()) });
      navigate(`/status-pages/${made.id}`, true);
      return;
    }
    const updated = await api<StatusPage>('PATCH', `/v1/status-pages/${encodeURIComponent(current.id)}`, bodyOf(values));
    setCurrent(updated);
    setValues(valuesOf(updated));
    setDone(true);
  });
  const remove = useAction();
  const del = () => remove.run(async () => {
    if (!current || !confirm(t('sp.delete_confirm', { title: current.title }))) return;
    await api('DELETE', `/v1/status-pages/${encodeURIComponent(current.id)}`);
    navigate('/status-pages');
  });
  return (
    <section>
      <p><Link href="/status-pages">{t('sp.back')}</Link></p>
      <h1>{current ? current.title : t('sp.new')}</h1>
      {current && (
        <div class="actions">
          <a class="button" href={`/status/${current.slug}`} target="_blank" rel="noopener">{t('sp.open_public')}<span class="sr-only"> {t('sp.opens_new')}</span></a>
          <Link href={`/incidents?page_id=${current.id}`} class="button">{t('sp.incidents_of_page')}</Link>
          <button type="button" class="danger" {...lockedBy(mark)} onClick={() => void del()}>{t('sp.delete')}</button>
        </div>
      )}
      <FormError id="sp-delete-error" error={remove.error} />
      <ManagedNote mark={mark} />
      <form onSubmit={submit} aria-describedby="sp-form-error">
        <LockedFields mark={mark}>
          <PageFields values={values} set={set} protectedNow={current?.password_protected ?? false} />
          <ComponentRows rows={values.components} onChange={(components) => set({ components })} />
          <Refusal id="sp-form-error" error={error} />
          {done && <p role="status" class="saved">{t('sp.saved')}</p>}
          <button type="submit" class="primary" disabled={busy}>{current ? t('sp.save') : t('sp.create')}</button>
        </LockedFields>
      </form>
      {current?.custom_domain && <DomainCheck page={current} />}
      {current && <Subscribers page={current} />}
    </section>
  );
}
