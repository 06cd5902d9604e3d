import type { NodeListItem } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { Empty, ErrorState, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { EnrollmentTokens } from './EnrollmentTokens.js';

type NodePage = { items: NodeListItem[]; total: number; page: number; page_size: number; has_more: boolean };
const FILTERS = ['country', 'status', 'mine', 'page'] as const;
const STATUSES = ['online', 'offline', 'disabled', 'banned'] as const satisfies readonly NodeListItem['status'][];

/** The node directory (GET /v1/nodes: filters and pages in the URL) and the caller's enrollment tokens. */
export default function NodesPage() {
  const { query } = useLocation();
  const params = new URLSearchParams();
  for (const f of FILTERS) { const v = query.get(f); if (v) params.set(f, v); }
  const list = useApi<NodePage>(`/v1/nodes?${params}`);
  function setFilter(name: (typeof FILTERS)[number], value: string) {
    const next = new URLSearchParams(location.search);
    if (value) next.set(name, value); else next.delete(name);
    if (name !== 'page') next.delete('page');
    navigate(`/nodes${next.size ? `?${next}` : ''}`, true);
  }
  return (
    <section>
      <h1>{t('nodes.title')}</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>{t('nodes.country')}<input value={query.get('country') ?? ''} maxLength={2} onChange={(e) => setFilter('country', (e.target as HTMLInputElement).value.trim())} /></label>
        <label>{t('nodes.status')}
          <select value={query.get('status') ?? ''} onChange={(e) => setFilter('status', (e.target as HTMLSelectElement).value)}>
            <option value="">{t('monitors.any')}</option>
            {STATUSES.map((s) => <option key={s} value={s}>{t(`nodes.status.${s}`)}</option>)}
          </select>
        </label>
        <label class="check"><input type="checkbox" checked={query.get('mine') === 'true'} onChange={(e) => setFilter('mine', (e.target as HTMLInputElement).checked ? 'true' : '')} />{t('nodes.mine')}</label>
      </form>
      {list.error ? <ErrorState error={list.error} retry={list.reload} />
        : !list.data ? <Loading />
        : list.data.items.length === 0 ? <Empty>{t('nodes.empty')}</Empty>
        : (
          <>
            <table>
              <thead><tr><th scope="col">{t('monitors.name')}</th><th scope="col">{t('nodes.status')}</th><th scope="col">{t('probes.location')}</th><th scope="col">{t('nodes.network')}</th><th scope="col">{t('nodes.capabilities')}</th><th scope="col">{t('nodes.last_seen')}</th></tr></thead>
              <tbody>{list.data.items.map((n) => (
                <tr key={n.id}>
                  <td><Link href={`/nodes/${n.id}`}>{n.name}</Link></td><td><span class={`badge node-${n.status}`}>{t(`nodes.status.${n.status}`)}</span></td>
                  <td>{[n.city, n.region, n.country].filter(Boolean).join(', ')}</td>
                  <td>{[n.asn === null ? null : `AS${n.asn}`, n.provider].filter(Boolean).join(' ')}</td>
                  <td>{n.capabilities.join(', ')}</td><td>{formatTime(n.last_seen_at)}</td>
                </tr>
              ))}</tbody>
            </table>
            <nav class="pager" aria-label={t('monitors.pagination')}>
              <button type="button" disabled={list.data.page <= 1} onClick={() => setFilter('page', String(list.data!.page - 1))}>{t('monitors.prev')}</button>
              <button type="button" disabled={!list.data.has_more} onClick={() => setFilter('page', String(list.data!.page + 1))}>{t('monitors.next')}</button>
            </nav>
          </>
        )}
      <EnrollmentTokens />
    </section>
  );
}
