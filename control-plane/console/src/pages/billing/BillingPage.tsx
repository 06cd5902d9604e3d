import type { BillingCheckout, BillingSubscription, BillingUsage } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { PLANS_TO_BUY } from '../../api/vocabulary.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { BillingTabs } from './BillingTabs.js';
import { followCheckout } from './checkout.js';
import { QuotaTable } from './QuotaTable.js';

/** Statuses with a live subscription (one cannot subscribe again; it can be canceled). */
const LIVE = new Set<BillingSubscription['status']>(['active', 'past_due']);

/**
 * The plan (GET /v1/billing/subscription): the plan in force, the subscription's status and paid
 * period; subscribe to pro or business (POST /v1/billing/subscribe, then the checkout URL is
 * followed) or cancel (POST …/subscription/cancel); the quotas used against their limits
 * (GET /v1/billing/usage) (docs/api/billing.md).
 */
export default function BillingPage() {
  const sub = useApi<BillingSubscription>('/v1/billing/subscription');
  const usage = useApi<BillingUsage>('/v1/billing/usage');
  const action = useAction(sub.reload);
  const subscribe = (plan: string) => action.run(async () => {
    followCheckout((await api<BillingCheckout>('POST', '/v1/billing/subscribe', { plan })).checkout_url);
  });
  const cancel = () => action.run(async () => {
    if (!confirm(t('billing.cancel_confirm'))) return;
    await api('POST', '/v1/billing/subscription/cancel');
    sub.reload();
  });
  return (
    <section>
      <h1>{t('billing.title')}</h1>
      <BillingTabs here="/billing" />
      {sub.error ? <ErrorState error={sub.error} retry={sub.reload} /> : !sub.data ? <Loading /> : (
        <>
          <dl class="facts">
            <dt>{t('billing.plan')}</dt><dd data-testid="plan">{t(`billing.plan.${sub.data.plan}` as 'billing.plan.free')}</dd>
            <dt>{t('billing.status')}</dt><dd>{t(`billing.status.${sub.data.status}`)}{sub.data.subscribed_plan && <> ({t(`billing.plan.${sub.data.subscribed_plan}`)})</>}</dd>
            {sub.data.current_period_end && <><dt>{t('billing.period_end')}</dt><dd>{formatTime(sub.data.current_period_end)}</dd></>}
          </dl>
          {sub.data.status === 'canceled' && <p class="hint">{t('billing.canceled_hint')}</p>}
          {sub.data.status === 'incomplete' && <p class="hint">{t('billing.incomplete_hint')}</p>}
          <p class="actions">
            {!LIVE.has(sub.data.status) && PLANS_TO_BUY.map((plan) => (
              <button key={plan} type="button" class="primary" onClick={() => void subscribe(plan)}>{t('billing.subscribe', { plan: t(`billing.plan.${plan}`) })}</button>
            ))}
            {(LIVE.has(sub.data.status) || sub.data.status === 'incomplete') && <button type="button" class="danger" onClick={() => void cancel()}>{t('billing.cancel')}</button>}
          </p>
          <FormError id="billing-error" error={action.error} />
        </>
      )}
      <h2>{t('billing.quotas')}</h2>
      {usage.error ? <ErrorState error={usage.error} retry={usage.reload} /> : !usage.data ? <Loading /> : <QuotaTable usage={usage.data} />}
    </section>
  );
}
