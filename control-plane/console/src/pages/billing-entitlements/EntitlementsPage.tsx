import type { Entitlement } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Listed } from '../../components/Listed.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { BillingTabs } from '../billing/BillingTabs.js';

/** What an entitlement gives, in words: a quota override's extra amounts, else its balance. */
function grants(e: Entitlement): string {
  if (e.kind !== 'quota_override') return t(`billing.balance.${e.kind}`, { n: e.balance });
  return Object.entries(e.attrs).map(([quota, amount]) => `${quota} +${String(amount)}`).join(', ');
}

/**
 * Entitlements (GET /v1/entitlements, newest first): quota overrides, API call packs and report
 * credits granted to the account, with status, what each gives, source and dates
 * (docs/api/billing.md "Entitlements").
 */
export default function EntitlementsPage() {
  const list = useApi<Entitlement[]>('/v1/entitlements');
  return (
    <section>
      <h1>{t('billing.entitlements')}</h1>
      <BillingTabs here="/billing/entitlements" />
      <p class="hint">{t('billing.entitlements_intro')}</p>
      <Listed loaded={list} items={(d) => d} empty={t('billing.entitlements_empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('billing.kind')}</th><th scope="col">{t('billing.status')}</th><th scope="col">{t('billing.grants')}</th>
              <th scope="col">{t('billing.source')}</th><th scope="col">{t('billing.granted_at')}</th><th scope="col">{t('billing.expires_at')}</th>
            </tr></thead>
            <tbody>{d.map((e) => (
              <tr key={e.id}>
                <td>{t(`billing.kind.${e.kind}`)}</td>
                <td>{t(`billing.entitlement.${e.status}`)}</td>
                <td>{grants(e)}</td>
                <td>{e.source}{e.order_ref && <span class="muted"> ({e.order_ref})</span>}</td>
                <td>{formatTime(e.granted_at)}</td>
                <td>{e.expires_at ? formatTime(e.expires_at) : t('billing.no_expiry')}</td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
    </section>
  );
}
