import type { Incident } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { ImpactBadge, IncidentStatusBadge } from '../../components/IncidentBadges.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { Pager } from '../../components/Pager.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { IncidentForm } from './IncidentForm.js';
import { useTeamScope, withTeam } from '../../api/team-scope.js';

type IncidentPage = { items: Incident[]; total: number; page: number; page_size: number };
const PAGE_SIZE = 20;

/**
 * Incidents (GET /v1/incidents, newest first, 20 a page; `status` open or resolved and `page` from
 * the URL): title, status, impact, start and end; each opens its page. Below, the form for a new
 * one (`?page_id=` preselects a status page). docs/api/status-pages.md "Incidents".
 */
export default function IncidentsPage() {
  const { query } = useLocation();
  const status = query.get('status') ?? '';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const list = useApi<IncidentPage>(withTeam(`/v1/incidents?page_size=${PAGE_SIZE}&page=${page}${status ? `&status=${status}` : ''}`, useTeamScope()));
  const go = (next: { status?: string; page?: number }) => {
    const q = new URLSearchParams();
    const s = next.status ?? status;
    if (s) q.set('status', s);
    if (next.page && next.page > 1) q.set('page', String(next.page));
    navigate(`/incidents${q.size ? `?${q}` : ''}`, true);
  };
  return (
    <section>
      <h1>{t('inc.title')}</h1>
      <p class="hint">{t('inc.intro')}</p>
      <div class="filters">
        <label>{t('inc.filter')}
          <select value={status} onChange={(e) => go({ status: (e.target as HTMLSelectElement).value, page: 1 })}>
            <option value="">{t('inc.filter.all')}</option>
            <option value="open">{t('inc.filter.open')}</option>
            <option value="resolved">{t('inc.filter.resolved')}</option>
          </select>
        </label>
      </div>
      <Listed loaded={list} items={(d) => d.items} empty={status ? t('inc.empty_filtered') : t('inc.empty')}>
        {(d) => (
          <>
            <table>
              <thead><tr>
                <th scope="col">{t('inc.incident_title')}</th><th scope="col">{t('events.status')}</th><th scope="col">{t('inc.impact')}</th>
                <th scope="col">{t('inc.started')}</th><th scope="col">{t('inc.resolved_at')}</th>
              </tr></thead>
              <tbody>{d.items.map((i) => (
                <tr key={i.id}>
                  <td><Link href={`/incidents/${i.id}`}>{i.title}</Link></td>
                  <td><IncidentStatusBadge status={i.status} /></td><td><ImpactBadge impact={i.impact} /></td>
                  <td>{formatTime(i.started_at)}</td><td>{formatTime(i.resolved_at) || '—'}</td>
                </tr>
              ))}</tbody>
            </table>
            <Pager page={d.page} pages={Math.max(1, Math.ceil(d.total / d.page_size))} total={d.total} onPage={(p) => go({ page: p })} />
          </>
        )}
      </Listed>
      <IncidentForm preselect={query.get('page_id')} />
    </section>
  );
}
