import type { AlertEventList, AlertEventRecord } from '@vantage/shared-protocol';
import { EVENT_STATUSES } from '../../api/vocabulary.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { AlertingTabs } from '../../components/AlertingTabs.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { MonitorName } from '../../components/MonitorSelect.js';
import { Pager } from '../../components/Pager.js';
import { FormError } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { useTeamScope, withTeam } from '../../api/team-scope.js';

/**
 * Alert events (GET /v1/alert-events, newest first, 20 a page; `status` and `page` in the URL):
 * one row per outage a policy saw, with acknowledge and resolve (docs/api/alerting.md "Alert events").
 */
export default function AlertEventsPage() {
  const { query } = useLocation();
  const status = query.get('status') ?? '';
  const page = Number(query.get('page') ?? '1') || 1;
  const params = new URLSearchParams({ page: String(page), page_size: '20', ...(status ? { status } : {}) });
  const events = useApi<AlertEventList>(withTeam(`/v1/alert-events?${params}`, useTeamScope()));
  const action = useAction(events.reload);
  function go(next: { status?: string; page?: number }) {
    const q = new URLSearchParams();
    const s = next.status ?? status;
    if (s) q.set('status', s);
    if ((next.page ?? 1) > 1) q.set('page', String(next.page));
    navigate(`/alerts${q.size ? `?${q}` : ''}`, true);
  }
  const move = (e: AlertEventRecord, verb: 'ack' | 'resolve') => action.call('POST', `/v1/alert-events/${encodeURIComponent(e.id)}/${verb}`);
  return (
    <section>
      <h1>{t('events.title')}</h1>
      <AlertingTabs here="/alerts" />
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>{t('events.filter_status')}
          <select value={status} onChange={(e) => go({ status: (e.target as HTMLSelectElement).value })}>
            <option value="">{t('monitors.any')}</option>
            {EVENT_STATUSES.map((s) => <option key={s} value={s}>{t(`events.status.${s}`)}</option>)}
          </select>
        </label>
      </form>
      <FormError id="events-error" error={action.error} />
      <Listed loaded={events} items={(d) => d.items} empty={<>{status ? t('events.empty_filtered') : t('events.empty')} {!status && <Link href="/alerts/policies">{t('events.to_policies')}</Link>}</>}>
        {(d) => (
          <>
            <table>
              <thead><tr>
                <th scope="col">{t('monitors.name')}</th><th scope="col">{t('events.status')}</th><th scope="col">{t('events.type')}</th>
                <th scope="col">{t('events.started')}</th><th scope="col">{t('events.reason')}</th><th scope="col">{t('events.handled')}</th>
                <th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
              </tr></thead>
              <tbody>{d.items.map((e) => (
                <tr key={e.id} data-event={e.id}>
                  <td><MonitorName monitor_id={e.monitor_id} /></td>
                  <td><span class={`badge event-${e.status}`}>{t(`events.status.${e.status}`)}</span>{e.suppressed && <span class="muted"> {t('events.suppressed', { why: e.suppressed })}</span>}</td>
                  <td>{e.type}</td>
                  <td>{formatTime(e.started_at)}</td>
                  <td class="clip">{typeof e.metadata?.reason === 'string' ? e.metadata.reason : ''}</td>
                  <td>{e.resolved_at ? t('events.resolved_at', { at: formatTime(e.resolved_at) }) : e.acknowledged_at ? t('events.acked_at', { at: formatTime(e.acknowledged_at) }) : ''}</td>
                  <td class="actions">
                    {e.status === 'firing' && <button type="button" onClick={() => void move(e, 'ack')}>{t('events.ack')}</button>}
                    {e.status !== 'resolved' && <button type="button" onClick={() => void move(e, 'resolve')}>{t('events.resolve')}</button>}
                  </td>
                </tr>
              ))}</tbody>
            </table>
            <Pager page={d.page} pages={Math.max(1, Math.ceil(d.total / d.page_size))} total={d.total} onPage={(p) => go({ page: p })} />
          </>
        )}
      </Listed>
    </section>
  );
}
