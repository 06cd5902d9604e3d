import type { AccountRetention } from '../contracts.js';
import { planQuotas } from '../monitors/plans.js';
import { accountsWithOwnTerms } from './quotas.db.js';
import { accountsQuotas, type QuotaDeps } from './quotas.js';

/**
 * Raw-check retention per account (docs/api/billing.md "Plans and quotas"): the
 * `checks_retention_days` quota of each account's plan, resolved as every other quota is
 * (accountsQuotas: its subscription's plan, else the deployment's, with quota_override
 * entitlements added). Accounts on the deployment's plan with no entitlement share
 * `default_days`, so only accounts with their own terms are resolved one by one.
 */
export function accountRetention(deps: QuotaDeps): AccountRetention {
  return {
    async rawDays() {
      const resolved = await accountsQuotas(deps, await accountsWithOwnTerms(deps.sql));
      const accounts = new Map([...resolved].map(([id, a]) => [id, a.quotas.checks_retention_days]));
      return { default_days: planQuotas(deps.config, deps.config.plan).checks_retention_days, accounts };
    },
  };
}
