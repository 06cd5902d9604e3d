import { useState } from 'preact/hooks';
import type { StatusPage, StatusPageSubscriberList } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { useApi } from '../../api/use-api.js';
import { ListPager } from '../../components/Pager.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';

const STATES = ['pending', 'confirmed', 'unsubscribed'] as const;

/**
 * A status page's subscribers as its owner sees them (docs/api/status-pages.md "Subscribers"):
 * `GET /v1/status-pages/{id}/subscribers` newest first, 20 a page, filtered by state; each row's
 * kind, address (an e-mail address or a webhook URL; never a secret), state, when it subscribed
 * and confirmed; "Remove" (confirmed first) deletes it (`DELETE …/subscribers/{subscriber_id}`).
 * A team viewer's removal is refused by the API (403), shown as it says it.
 */
export function Subscribers({ page }: { page: StatusPage }) {
  const [state, setState] = useState<string>('');
  const [n, setN] = useState(1);
  const query = new URLSearchParams({ page: String(n), ...(state ? { state } : {}) });
  const list = useApi<StatusPageSubscriberList>(`/v1/status-pages/${encodeURIComponent(page.id)}/subscribers?${query}`);
  const action = useAction();
  const remove = (id: string, address: string) => {
    if (!confirm(t('sp.subs_remove_confirm', { address }))) return;
    void action.run(async () => {
      await api('DELETE', `/v1/status-pages/${encodeURIComponent(page.id)}/subscribers/${encodeURIComponent(id)}`);
      list.reload();
    });
  };
  return (
    <>
      <h2 id="sp-subs-title">{t('sp.subs_title')}</h2>
      <p class="hint">{t('sp.subs_intro')}</p>
      <label>{t('sp.subs_state')}{' '}
        <select value={state} onChange={(e) => { setState((e.target as HTMLSelectElement).value); setN(1); }}>
          <option value="">{t('sp.subs_state_any')}</option>
          {STATES.map((s) => <option key={s} value={s}>{t(`recipients.state.${s}`)}</option>)}
        </select>
      </label>
      {list.error ? <ErrorState error={list.error} retry={list.reload} /> : !list.data ? <Loading /> : list.data.total === 0 ? (
        <p role="status">{state ? t('sp.subs_none_in_state') : t('sp.subs_none')}</p>
      ) : (
        <>
          <table aria-labelledby="sp-subs-title" data-testid="sp-subscribers">
            <thead><tr>
              <th scope="col">{t('sp.subs_kind')}</th><th scope="col">{t('recipients.address')}</th><th scope="col">{t('recipients.state')}</th>
              <th scope="col">{t('sp.subs_since')}</th><th scope="col">{t('sp.subs_confirmed')}</th>
              <th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
            </tr></thead>
            <tbody>{list.data.items.map((s) => (
              <tr key={s.id}>
                <td>{t(`sp.subs_kind.${s.kind}`)}</td>
                <td class="wrap">{s.address}</td>
                <td>{t(`recipients.state.${s.state}`)}</td>
                <td>{formatTime(s.created_at)}</td>
                <td>{s.confirmed_at ? formatTime(s.confirmed_at) : '—'}</td>
                <td class="actions">
                  <button type="button" class="danger" aria-label={t('sp.subs_remove_named', { address: s.address })} onClick={() => remove(s.id, s.address)}>{t('sp.subs_remove')}</button>
                </td>
              </tr>
            ))}</tbody>
          </table>
          <ListPager list={list.data} onPage={setN} />
        </>
      )}
      <FormError id="sp-subs-error" error={action.error} />
    </>
  );
}
