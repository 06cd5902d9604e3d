import { cut, JSON_HEADERS, type ChannelFormat } from './http-channel.js';

/**
 * PagerDuty Events API v2 (https://developer.pagerduty.com/docs/events-api-v2/trigger-events):
 * `{routing_key, event_action, dedup_key}`; a trigger adds `payload {summary (max 1024),
 * source, severity, timestamp, custom_details}`; acknowledge and resolve carry only the key, so
 * one dedup key (one alert event) ties them together. PagerDuty answers 202; 400 is a refused
 * event (not retried), 429 and 5xx are retried.
 */
export const pagerdutyFormat: ChannelFormat<'pagerduty'> = {
  type: 'pagerduty',
  build(c, n) {
    const base = { routing_key: c.routing_key, event_action: n.event_action, dedup_key: n.dedup_key };
    const body = n.event_action !== 'trigger' ? base : {
      ...base,
      client: 'Vantage',
      payload: {
        summary: cut(n.title || n.body || 'Vantage alert', 1024),
        source: n.monitor?.target || n.monitor?.name || 'vantage',
        severity: n.kind === 'test' ? 'info' : c.severity,
        timestamp: n.occurred_at,
        component: n.monitor?.name,
        custom_details: { body: n.body, monitor_id: n.monitor?.id ?? null, event_id: n.event_id, policy_id: n.policy_id },
      },
    };
    return [{ url: c.api_url, body: JSON.stringify(body), headers: { ...JSON_HEADERS } }];
  },
};
