import type { StatusPage } from '@vantage/shared-protocol';
import { useApi } from '../api/use-api.js';
import { ErrorState } from './states.js';
import { t } from '../i18n/i18n.js';

/**
 * The status pages an incident shows on and the components it affects (docs/api/status-pages.md
 * "Incidents"): one checkbox per page of the user (GET /v1/status-pages), and under each chosen
 * page one per component. Unchoosing a page drops its components, as the API accepts only
 * components of the chosen pages.
 */
export function IncidentScope({ id, pageIds, componentIds, onChange }: {
  id: string; pageIds: string[]; componentIds: string[]; onChange: (pageIds: string[], componentIds: string[]) => void;
}) {
  const pages = useApi<{ items: StatusPage[] }>('/v1/status-pages');
  if (pages.error) return <ErrorState error={pages.error} retry={pages.reload} />;
  const items = pages.data?.items ?? [];
  const togglePage = (p: StatusPage, on: boolean) => {
    const own = new Set(p.components.map((c) => c.id));
    onChange(on ? [...pageIds, p.id] : pageIds.filter((x) => x !== p.id), on ? componentIds : componentIds.filter((c) => !own.has(c)));
  };
  const toggleComponent = (c: string, on: boolean) => onChange(pageIds, on ? [...componentIds, c] : componentIds.filter((x) => x !== c));
  return (
    <fieldset>
      <legend>{t('inc.pages')}</legend>
      {pages.data && items.length === 0 && <p class="hint">{t('inc.no_pages')}</p>}
      {items.map((p) => (
        <div key={p.id} class="scope-page">
          <label class="check"><input type="checkbox" id={`${id}-page-${p.id}`} checked={pageIds.includes(p.id)} onChange={(e) => togglePage(p, (e.target as HTMLInputElement).checked)} />{p.title}</label>
          {pageIds.includes(p.id) && p.components.length > 0 && (
            <fieldset class="nested">
              <legend>{t('inc.affected', { page: p.title })}</legend>
              <div class="checks">{p.components.map((c) => (
                <label class="check" key={c.id}><input type="checkbox" checked={componentIds.includes(c.id)} onChange={(e) => toggleComponent(c.id, (e.target as HTMLInputElement).checked)} />{c.display_name}</label>
              ))}</div>
            </fieldset>
          )}
        </div>
      ))}
    </fieldset>
  );
}
