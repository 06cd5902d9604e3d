import { useState } from 'preact/hooks';
import type { AdminAccount, Entitlement } from '@vantage/shared-protocol';
import { useAction } from '../../api/use-action.js';
import { useAdministrator } from '../../api/use-admin.js';
import { useApi } from '../../api/use-api.js';
import { Field } from '../../components/Field.js';
import { Listed } from '../../components/Listed.js';
import { Empty, ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { BillingTabs } from '../billing/BillingTabs.js';
import { EntitlementsTable } from '../billing-entitlements/EntitlementsTable.js';
import { GrantForm } from './GrantForm.js';
import { MarkPaidForm } from './MarkPaidForm.js';

type AccountList = { accounts: AdminAccount[]; total: number };

/**
 * An account's entitlements for an administrator (GET /v1/admin/entitlements?user_id=), an
 * entitlement granted to it, and a revoke of an active one (DELETE /v1/admin/entitlements/{id},
 * confirmed first). The accounts are the first 100, oldest first (GET /v1/admin/accounts).
 */
function AccountEntitlements({ accounts }: { accounts: AdminAccount[] }) {
  const [user_id, setUserId] = useState(accounts[0]!.id);
  const [done, setDone] = useState<string | null>(null);
  const account = accounts.find((a) => a.id === user_id) ?? accounts[0]!;
  const list = useApi<Entitlement[]>(`/v1/admin/entitlements?user_id=${encodeURIComponent(account.id)}`);
  const action = useAction(list.reload);
  return (
    <>
      <div class="narrow">
        <Field id="admin-account" label={t('billing.admin.account')}>
          <select id="admin-account" value={account.id} onChange={(e) => { setDone(null); setUserId((e.target as HTMLSelectElement).value); }}>
            {accounts.map((a) => <option key={a.id} value={a.id}>{a.email}</option>)}
          </select>
        </Field>
      </div>
      <GrantForm key={account.id} account={account} granted={(e) => { setDone(t('billing.admin.granted', { kind: t(`billing.kind.${e.kind}`), email: account.email })); list.reload(); }} />
      {done && <p role="status">{done}</p>}
      <h2>{t('billing.admin.of_account', { email: account.email })}</h2>
      <FormError id="revoke-error" error={action.error} />
      <Listed loaded={list} items={(d) => d} empty={t('billing.admin.none')}>
        {(d) => <EntitlementsTable items={d} actions={(e) => e.status === 'active' && (
          <button type="button" aria-label={t('billing.admin.revoke_named', { kind: t(`billing.kind.${e.kind}`), when: formatTime(e.granted_at) })}
            onClick={() => { if (confirm(t('billing.admin.revoke_confirm'))) void action.call('DELETE', `/v1/admin/entitlements/${encodeURIComponent(e.id)}`); }}>{t('billing.admin.revoke')}</button>
        )} />}
      </Listed>
    </>
  );
}

/**
 * Administrators' billing actions (/billing/admin, docs/api/billing.md "Entitlements", "Manual"):
 * mark an invoice paid, and an account's entitlements granted and revoked. Shown to
 * administrators only (GET /v1/account/administrator); anyone else is told so and nothing of
 * /v1/admin is asked.
 */
export default function BillingAdminPage() {
  const admin = useAdministrator();
  const accounts = useApi<AccountList>(admin.data?.is_admin ? '/v1/admin/accounts?limit=100' : null);
  let body;
  if (admin.error) body = <ErrorState error={admin.error} retry={admin.reload} />;
  else if (!admin.data) body = <Loading />;
  else if (!admin.data.is_admin) body = <Empty>{t('billing.admin.only')}</Empty>;
  else if (accounts.error) body = <ErrorState error={accounts.error} retry={accounts.reload} />;
  else if (!accounts.data) body = <Loading />;
  else body = <><MarkPaidForm /><AccountEntitlements accounts={accounts.data.accounts} /></>;
  return (
    <section>
      <h1>{t('billing.admin.title')}</h1>
      <BillingTabs here="/billing/admin" />
      <p class="hint">{t('billing.admin.intro')}</p>
      {body}
    </section>
  );
}
