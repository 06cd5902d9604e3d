import { domainExpiryMonitorConfigSchema, type DomainExpiryCheckOutput } from '@vantage/shared-protocol';
import type { EventPublisher, SqlExecutor } from '../contracts.js';
import { expiryThresholds, publishExpiryOnce, type ExpiryThresholds } from '../checks/expiry-events.js';
import type { ClaimedDomainCheck } from './domain-expiry.db.js';

/** The domain_expiry defaults (warn_days 30, critical_days 7), for a config that lacks them. */
const DOMAIN_DEFAULT_THRESHOLDS: ExpiryThresholds = (({ warn_days, critical_days }) => ({ warn_days, critical_days }))(domainExpiryMonitorConfigSchema.parse({}));

/**
 * Queue `domain.expiring` (docs/api/webhooks.md "Events") in `tx` when the registration a look-up
 * found (`output`) has fewer days left than the monitor's `warn_days` or `critical_days`, once per
 * threshold and registration expiry (a renewal, a new expiry date, starts over: expiry-events.ts
 * publishExpiryOnce), however many rounds and instances see it.
 * @returns true when the event was queued
 */
export async function publishDomainExpiring(tx: SqlExecutor, events: EventPublisher, m: ClaimedDomainCheck, output: DomainExpiryCheckOutput): Promise<boolean> {
  if (output.expires_at === null || output.days_until_expiry === null) return false;
  const thresholds = expiryThresholds(m.config, DOMAIN_DEFAULT_THRESHOLDS);
  return publishExpiryOnce(tx, events, { monitor_id: m.monitor_id, subject: `domain:${output.expires_at}`, days_left: output.days_until_expiry, thresholds }, {
    type: 'domain.expiring', user_id: m.user_id,
    data: {
      monitor: { id: m.monitor_id, name: m.name, type: 'domain_expiry', target: m.target },
      domain: output.domain, registrar: output.registrar, expires_at: output.expires_at, days_left: output.days_until_expiry,
    },
  });
}
