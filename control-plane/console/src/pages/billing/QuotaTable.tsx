import type { BillingUsage } from '@vantage/shared-protocol';
import { UsageBar } from '../../components/UsageBar.js';
import { LANG_TAGS, locale, t } from '../../i18n/i18n.js';

/** The counted quotas and the `used` member that counts each (docs/api/billing.md "Plans and quotas"). */
const COUNTED = { monitors: 'monitors', status_pages: 'status_pages', mcp_tokens: 'mcp_tokens', api_calls_per_day: 'api_calls_today' } as const;
/** Limits with nothing to count: a number each. */
const LIMITS = ['node_count', 'min_interval_s', 'checks_retention_days'] as const;

/** The plan's quotas: each counted one used against its limit (a bar and the figures), then the plain limits. */
export function QuotaTable({ usage }: { usage: BillingUsage }) {
  const n = (x: number) => x.toLocaleString(LANG_TAGS[locale()]);
  return (
    <table>
      <thead><tr><th scope="col">{t('billing.quota')}</th><th scope="col">{t('billing.used_of_limit')}</th></tr></thead>
      <tbody>
        {(Object.keys(COUNTED) as Array<keyof typeof COUNTED>).map((q) => {
          const used = usage.used[COUNTED[q]];
          const limit = usage.quotas[q] ?? null;
          return (
            <tr key={q}>
              <th scope="row">{t(`billing.quota.${q}`)}</th>
              <td><UsageBar used={used} limit={limit} label={t(`billing.quota.${q}`)} text={limit === null ? n(used) : t('billing.n_of_m', { used: n(used), limit: n(limit) })} /></td>
            </tr>
          );
        })}
        {LIMITS.filter((q) => usage.quotas[q] !== undefined).map((q) => (
          <tr key={q}><th scope="row">{t(`billing.quota.${q}`)}</th><td>{n(usage.quotas[q]!)}</td></tr>
        ))}
      </tbody>
    </table>
  );
}
