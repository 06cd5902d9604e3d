import type { Entitlement } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Listed } from '../../components/Listed.js';
import { t } from '../../i18n/i18n.js';
import { BillingTabs } from '../billing/BillingTabs.js';
import { EntitlementsTable } from './EntitlementsTable.js';

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
        {(d) => <EntitlementsTable items={d} />}
      </Listed>
    </section>
  );
}
