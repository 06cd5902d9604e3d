import type { Monitor } from '@vantage/shared-protocol';
import { MONITOR_STATES, MONITOR_TYPES } from '@vantage/shared-protocol/monitor-types';
import { useApi } from '../../api/use-api.js';
import { useMarks } from '../../api/use-marks.js';
import { Link } from '../../components/Link.js';
import { ManagedBadge } from '../../components/managed/Managed.js';
import { Sparkline } from '../../components/Sparkline.js';
import { StateBadge } from '../../components/StateBadge.js';
import { Empty, ErrorState, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { useTeamScope } from '../../api/team-scope.js';

type MonitorPage = { items: Monitor[]; total: number; page: number; limit: number };
/** Filters kept in the URL (so a filtered list is a link) and passed to GET /v1/monitors as they are. */
const FILTERS = ['q', 'state', 'type', 'page'] as const;

/**
 * The monitor list: server-side paging and filtering (GET /v1/monitors), state, 24 h uptime and a
 * latency sparkline per row, and the file of each monitor applied from one (docs/api/as-code.md "Marks").
 */
export default function MonitorsPage() {
  const { query } = useLocation();
  const params = new URLSearchParams();
  for (const f of FILTERS) { const v = query.get(f); if (v) params.set(f, v); }
  params.set('limit', '20');
  const team_id = useTeamScope();
  if (team_id) params.set('team_id', team_id);
  const list = useApi<MonitorPage>(`/v1/monitors?${params}`);
  const markOf = useMarks('monitor');
  const filtered = FILTERS.some((f) => f !== 'page' && query.get(f));
  function setFilter(name: (typeof FILTERS)[number], value: string) {
    const next = new URLSearchParams(location.search);
    if (value) next.set(name, value); else next.delete(name);
    if (name !== 'page') next.delete('page');
    navigate(`/monitors${next.size ? `?${next}` : ''}`, true);
  }
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / list.data.limit)) : 1;
  return (
    <section>
      <div class="title-row">
        <h1>{t('monitors.title')}</h1>
        <Link href="/monitors/new" class="button primary">{t('monitors.new')}</Link>
        <Link href="/monitors/transfer" class="button">{t('transfer.title')}</Link>
      </div>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>{t('monitors.search')}<input type="search" value={query.get('q') ?? ''} onChange={(e) => setFilter('q', (e.target as HTMLInputElement).value)} /></label>
        <label>{t('monitors.filter_state')}
          <select value={query.get('state') ?? ''} onChange={(e) => setFilter('state', (e.target as HTMLSelectElement).value)}>
            <option value="">{t('monitors.any')}</option>
            {MONITOR_STATES.map((s) => <option key={s} value={s}>{t(`state.${s}`)}</option>)}
          </select>
        </label>
        <label>{t('monitors.filter_type')}
          <select value={query.get('type') ?? ''} onChange={(e) => setFilter('type', (e.target as HTMLSelectElement).value)}>
            <option value="">{t('monitors.any')}</option>
            {MONITOR_TYPES.map((ty) => <option key={ty} value={ty}>{ty}</option>)}
          </select>
        </label>
      </form>
      {list.error ? <ErrorState error={list.error} retry={list.reload} />
        : !list.data ? <Loading />
        : list.data.items.length === 0 ? <Empty action={filtered ? undefined : <Link href="/monitors/new" class="button primary">{t('monitors.new')}</Link>}>{filtered ? t('monitors.empty_filtered') : t('monitors.empty')}</Empty>
        : (
          <>
            <table class="monitors">
              <thead><tr>
                <th scope="col">{t('monitors.name')}</th><th scope="col">{t('monitors.state')}</th><th scope="col">{t('monitors.type')}</th>
                <th scope="col">{t('monitors.target')}</th><th scope="col">{t('monitors.uptime_24h')}</th><th scope="col">{t('monitors.latency')}</th><th scope="col">{t('monitors.last_check')}</th>
              </tr></thead>
              <tbody>
                {list.data.items.map((m) => (
                  <tr key={m.id}>
                    <td><Link href={`/monitors/${m.id}`}>{m.name}</Link> <ManagedBadge mark={markOf(m.id)} /></td>
                    <td><StateBadge state={m.state} /></td>
                    <td>{m.type}</td>
                    <td class="clip">{m.target ?? ''}</td>
                    <td>{m.uptime_24h === null ? t('monitors.no_data') : `${(m.uptime_24h * 100).toFixed(2)} %`}</td>
                    <td><Sparkline monitor_id={m.id} name={m.name} /></td>
                    <td>{formatTime(m.last_check_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <nav class="pager" aria-label={t('monitors.pagination')}>
              <button type="button" disabled={list.data.page <= 1} onClick={() => setFilter('page', String(list.data!.page - 1))}>{t('monitors.prev')}</button>
              <span>{t('monitors.page', { page: list.data.page, pages, total: list.data.total })}</span>
              <button type="button" disabled={list.data.page >= pages} onClick={() => setFilter('page', String(list.data!.page + 1))}>{t('monitors.next')}</button>
            </nav>
          </>
        )}
    </section>
  );
}
