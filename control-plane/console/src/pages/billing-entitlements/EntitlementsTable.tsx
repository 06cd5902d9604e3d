import type { ComponentChildren } from 'preact';
import type { Entitlement } from '@vantage/shared-protocol';
import { formatTime, t } from '../../i18n/i18n.js';

/** What an entitlement gives, in words: a quota override's extra amounts, else its balance. */
function grants(e: Entitlement): string {
  if (e.kind !== 'quota_override') return t(`billing.balance.${e.kind}`, { n: e.balance });
  return Object.entries(e.attrs).map(([quota, amount]) => `${quota} +${String(amount)}`).join(', ');
}

/**
 * Entitlements (docs/api/billing.md "Entitlements"): kind, status, what each gives, source and
 * order, granted, expires; `actions` adds a last column (an administrator's revoke).
 */
export function EntitlementsTable({ items, actions }: { items: Entitlement[]; actions?: (e: Entitlement) => ComponentChildren }) {
  return (
    <table>
      <thead><tr>
        <th scope="col">{t('billing.kind')}</th><th scope="col">{t('billing.status')}</th><th scope="col">{t('billing.grants')}</th>
        <th scope="col">{t('billing.source')}</th><th scope="col">{t('billing.granted_at')}</th><th scope="col">{t('billing.expires_at')}</th>
        {actions && <th scope="col"><span class="sr-only">{t('events.actions')}</span></th>}
      </tr></thead>
      <tbody>{items.map((e) => (
        <tr key={e.id}>
          <td>{t(`billing.kind.${e.kind}`)}</td>
          <td>{t(`billing.entitlement.${e.status}`)}</td>
          <td>{grants(e)}</td>
          <td>{e.source}{e.order_ref && <span class="muted"> ({e.order_ref})</span>}</td>
          <td>{formatTime(e.granted_at)}</td>
          <td>{e.expires_at ? formatTime(e.expires_at) : t('billing.no_expiry')}</td>
          {actions && <td class="actions">{actions(e)}</td>}
        </tr>
      ))}</tbody>
    </table>
  );
}
