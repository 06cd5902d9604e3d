import type { WebhookDelivery, WebhookEndpoint } from '@vantage/shared-protocol';
import type { AttemptRow } from '../delivery/deliveries.db.js';
import type { LoggedDelivery } from '../delivery/delivery-log.db.js';
import type { EndpointRow } from './webhook-endpoints.db.js';

/** An endpoint as the API shows it: never its secrets. */
export function toEndpoint(row: EndpointRow, now = Date.now()): WebhookEndpoint {
  const overlap = row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > now ? row.previous_secret_expires_at.toISOString() : null;
  return {
    id: row.id, team_id: row.team_id, user_id: row.user_id, url: row.url, description: row.description, events: row.events, enabled: row.enabled,
    disabled_reason: row.enabled ? null : row.disabled_reason ?? 'user',
    failing_since: row.failing_since?.toISOString() ?? null,
    previous_secret_expires_at: overlap,
    created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/** A delivery with its attempt log (oldest attempt first). */
export function toDelivery(row: LoggedDelivery, attempts: AttemptRow[]): WebhookDelivery {
  const status = row.status === 'pending' && row.delivering ? 'delivering' : row.status;
  return {
    id: row.id, endpoint_id: row.destination, event_id: row.message_id, event_type: row.event_type, status,
    attempt_count: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    created_at: row.created_at.toISOString(), finished_at: row.finished_at?.toISOString() ?? null,
    last_error: row.last_error,
    attempts: attempts.map((a) => ({
      attempt: a.attempt, started_at: a.started_at.toISOString(), status_code: a.status_code, latency_ms: a.latency_ms,
      response_body: a.response_body, error: a.error, outcome: a.outcome,
    })),
  };
}
