import { useState } from 'preact/hooks';
import type { AdminAccount, BillingUsage, Entitlement } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { ENTITLEMENT_KIND_LIST } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { Refusal } from '../../components/Refusal.js';
import { en } from '../../i18n/en.js';
import { t, type MessageKey } from '../../i18n/i18n.js';

type Kind = (typeof ENTITLEMENT_KIND_LIST)[number];
/** docs/api/billing.md "Entitlements": `min_interval_s` cannot be overridden by a quota override. */
const NOT_OVERRIDABLE = new Set(['min_interval_s']);

/**
 * Grant `account` an entitlement (POST /v1/admin/entitlements, docs/api/billing.md
 * "Entitlements"): a quota override with an extra amount per quota (the quota names are those
 * the plans count, read off GET /v1/billing/usage), or an API call or report pack with its balance;
 * source, order reference and expiry optional. `granted` gets the new entitlement.
 */
export function GrantForm({ account, granted }: { account: AdminAccount; granted: (e: Entitlement) => void }) {
  const usage = useApi<BillingUsage>('/v1/billing/usage');
  const [kind, setKind] = useState<Kind>('quota_override');
  const [amounts, setAmounts] = useState<Record<string, string>>({});
  const [balance, setBalance] = useState('');
  const [source, setSource] = useState('');
  const [order_ref, setOrderRef] = useState('');
  const [expires, setExpires] = useState('');
  const quotas = Object.keys(usage.data?.quotas ?? {}).filter((q) => !NOT_OVERRIDABLE.has(q));
  const quotaLabel = (q: string): string => (`billing.quota.${q}` in en ? t(`billing.quota.${q}` as MessageKey) : q);
  const { busy, error, submit } = useSubmit(async () => {
    const attrs = Object.fromEntries(Object.entries(amounts).filter(([, v]) => v.trim() !== '').map(([q, v]) => [q, Number(v)]));
    const made = await api<Entitlement>('POST', '/v1/admin/entitlements', {
      user_id: account.id, kind,
      ...(kind === 'quota_override' ? { attrs } : { balance: Number(balance || '0') }),
      ...(source.trim() ? { source: source.trim() } : {}),
      ...(order_ref.trim() ? { order_ref: order_ref.trim() } : {}),
      ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
    });
    setAmounts({}); setBalance(''); setOrderRef(''); setExpires('');
    granted(made);
  });
  return (
    <form onSubmit={submit} class="narrow">
      <h2>{t('billing.admin.grant', { email: account.email })}</h2>
      <Field id="grant-kind" label={t('billing.kind')}>
        <select id="grant-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}>
          {ENTITLEMENT_KIND_LIST.map((k) => <option key={k} value={k}>{t(`billing.kind.${k}`)}</option>)}
        </select>
      </Field>
      {kind === 'quota_override' ? (
        <fieldset>
          <legend>{t('billing.admin.amounts')}</legend>
          <p class="hint">{t('billing.admin.amounts_hint')}</p>
          {quotas.map((q) => (
            <Field key={q} id={`grant-${q}`} label={quotaLabel(q)}>
              <input id={`grant-${q}`} type="number" min={0} max={1_000_000_000} step={1} value={amounts[q] ?? ''} onInput={(e) => setAmounts({ ...amounts, [q]: (e.target as HTMLInputElement).value })} />
            </Field>
          ))}
        </fieldset>
      ) : (
        <Field id="grant-balance" label={t(`billing.admin.balance.${kind}`)}>
          <input id="grant-balance" type="number" required min={0} step={1} value={balance} onInput={(e) => setBalance((e.target as HTMLInputElement).value)} />
        </Field>
      )}
      <Field id="grant-source" label={t('billing.source')}>
        <input id="grant-source" maxLength={100} placeholder="admin" value={source} onInput={(e) => setSource((e.target as HTMLInputElement).value)} />
      </Field>
      <Field id="grant-order" label={t('billing.admin.order_ref')}>
        <input id="grant-order" maxLength={200} value={order_ref} onInput={(e) => setOrderRef((e.target as HTMLInputElement).value)} />
      </Field>
      <Field id="grant-expires" label={t('billing.admin.expires')}>
        <input id="grant-expires" type="datetime-local" value={expires} onInput={(e) => setExpires((e.target as HTMLInputElement).value)} />
      </Field>
      <Refusal id="grant-error" error={error} />
      <button type="submit" class="primary" disabled={busy}>{t('billing.admin.grant_submit')}</button>
    </form>
  );
}
