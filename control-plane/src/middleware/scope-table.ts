import type { AccountKeyScope } from '@vantage/shared-protocol';

/**
 * What an operation asks of an API key or PAT: one scope of docs/api/scopes.md, or `none` (a public
 * operation, one that takes a node credential, or one any signed-in caller may do).
 */
export type OperationScope = AccountKeyScope | 'none';

const crud = (base: string, read: AccountKeyScope, write: AccountKeyScope): Record<string, AccountKeyScope> => ({
  [`GET ${base}`]: read, [`POST ${base}`]: write,
  [`GET ${base}/{id}`]: read, [`PATCH ${base}/{id}`]: write, [`DELETE ${base}/{id}`]: write,
});

/**
 * THE scope table (docs/api/scopes.md): every operation of the API, as `METHOD /path` exactly as
 * the generated OpenAPI document writes it, to the scope a key or PAT needs for it. Sessions carry
 * every scope. A new route adds its line here: scopes.test.ts walks the document and fails for an
 * operation missing from this table (and for a line naming no operation), and docs/api/scopes.md
 * is generated from it. Families: `probe` (run probes) and `probe:read`; `monitor:*` (monitors,
 * groups, their checks and artifacts); `alert:*` (alerting: channels, policies, silences, groups,
 * maintenance, events, noise rules, on-call, webhook endpoints); `status:*` and `billing:*` (no
 * operation yet); everything else (account, keys, teams, nodes, administration) only `read`/`write`.
 */
export const OPERATION_SCOPES: Readonly<Record<string, OperationScope>> = {
  // Public, or a credential other than an account key.
  'GET /install.sh': 'none',
  'GET /install/agent.tar.gz': 'none',
  'GET /install/agent.tar.gz.sha256': 'none',
  'GET /v1/openapi.json': 'none',
  'POST /v1/auth/register': 'none',
  'POST /v1/auth/login': 'none',
  'POST /v1/auth/refresh': 'none',
  'POST /v1/auth/logout': 'none',
  'GET /v1/auth/verify-email': 'none',
  'POST /v1/auth/verify-email': 'none',
  'GET /v1/geo/cities': 'none',
  'GET /v1/nodes/connect': 'none',
  'PUT /v1/nodes/artifacts/{sha256}': 'none',
  'GET /v1/heartbeat/{token}': 'none',
  'POST /v1/heartbeat/{token}': 'none',
  'GET /v1/heartbeat/{token}/{action}': 'none',
  'POST /v1/heartbeat/{token}/{action}': 'none',
  'GET /v1/alert-channels/recipients/confirm': 'none',
  'POST /v1/alert-channels/recipients/confirm': 'none',
  'GET /v1/alert-channels/recipients/unsubscribe': 'none',
  'POST /v1/alert-channels/recipients/unsubscribe': 'none',

  // The account itself, its keys and tokens.
  'POST /v1/auth/verify-email/resend': 'write',
  'GET /v1/account/profile': 'read',
  'PATCH /v1/account/profile': 'write',
  'POST /v1/account/2fa/setup': 'write',
  'POST /v1/account/2fa/enable': 'write',
  'POST /v1/account/2fa/disable': 'write',
  'GET /v1/account/api-keys': 'read',
  'POST /v1/account/api-keys': 'write',
  'DELETE /v1/account/api-keys/{id}': 'write',
  'GET /v1/account/tokens': 'read',
  'POST /v1/account/tokens': 'write',
  'DELETE /v1/account/tokens/{id}': 'write',

  // Administration (administrators only, besides the scope).
  'GET /v1/admin/accounts': 'read',
  'POST /v1/admin/accounts': 'write',
  'PATCH /v1/admin/accounts/{id}': 'write',
  'GET /v1/admin/invites': 'read',
  'POST /v1/admin/invites': 'write',
  'DELETE /v1/admin/invites/{id}': 'write',
  'GET /v1/admin/nodes': 'read',
  'PATCH /v1/admin/nodes/{id}': 'write',

  // Teams.
  'GET /v1/teams': 'read',
  'POST /v1/teams': 'write',
  'GET /v1/teams/{id}': 'read',
  'PATCH /v1/teams/{id}': 'write',
  'DELETE /v1/teams/{id}': 'write',
  'POST /v1/teams/invites/accept': 'write',
  'GET /v1/teams/{id}/members': 'read',
  'PATCH /v1/teams/{id}/members/{user_id}': 'write',
  'DELETE /v1/teams/{id}/members/{user_id}': 'write',
  'GET /v1/teams/{id}/invites': 'read',
  'POST /v1/teams/{id}/invites': 'write',
  'DELETE /v1/teams/{id}/invites/{invite_id}': 'write',

  // Probe nodes and their enrollment.
  'GET /v1/nodes': 'read',
  'GET /v1/nodes/{id}': 'read',
  'PATCH /v1/nodes/{id}': 'write',
  'DELETE /v1/nodes/{id}': 'write',
  'POST /v1/nodes/{id}/disable': 'write',
  'POST /v1/nodes/{id}/enable': 'write',
  'GET /v1/enrollment-tokens': 'read',
  'POST /v1/enrollment-tokens': 'write',
  'DELETE /v1/enrollment-tokens/{id}': 'write',

  // Ad-hoc probes (anonymous callers too, by VANTAGE_PUBLIC_PROBES; a key needs the scope).
  'POST /v1/probe/http': 'probe',
  'POST /v1/probe/ping': 'probe',
  'POST /v1/probe/dns': 'probe',
  'POST /v1/probe/tcp': 'probe',
  'POST /v1/probe/traceroute': 'probe',
  'GET /v1/probe/tasks/{task_id}': 'probe:read',
  'GET /v1/probe/tasks/{task_id}/stream': 'probe:read',

  // Monitors.
  ...crud('/v1/monitors', 'monitor:read', 'monitor:write'),
  'GET /v1/monitors/export': 'monitor:read',
  'POST /v1/monitors/import': 'monitor:write',
  'POST /v1/monitors/{id}/pause': 'monitor:write',
  'POST /v1/monitors/{id}/resume': 'monitor:write',
  'POST /v1/monitors/{id}/run': 'monitor:write',
  'POST /v1/monitors/{id}/heartbeat/rotate': 'monitor:write',
  'GET /v1/monitors/{id}/checks': 'monitor:read',
  'GET /v1/monitors/{id}/uptime': 'monitor:read',
  'GET /v1/monitors/{id}/stats': 'monitor:read',
  'GET /v1/monitors/{id}/state-changes': 'monitor:read',
  'GET /v1/monitors/{id}/stream': 'monitor:read',
  'GET /v1/monitors/{id}/artifacts/{sha256}': 'monitor:read',
  ...crud('/v1/monitor-groups', 'monitor:read', 'monitor:write'),

  // Alerting.
  ...crud('/v1/alert-channels', 'alert:read', 'alert:write'),
  'POST /v1/alert-channels/{id}/test': 'alert:write',
  'POST /v1/alert-channels/{id}/recipients/opt-in': 'alert:write',
  ...crud('/v1/alert-policies', 'alert:read', 'alert:write'),
  ...crud('/v1/alert-silences', 'alert:read', 'alert:write'),
  ...crud('/v1/alert-groups', 'alert:read', 'alert:write'),
  ...crud('/v1/maintenance-windows', 'alert:read', 'alert:write'),
  ...crud('/v1/alert-noise-rules', 'alert:read', 'alert:write'),
  'GET /v1/alert-events': 'alert:read',
  'GET /v1/alert-events/{id}': 'alert:read',
  'POST /v1/alert-events/{id}/ack': 'alert:write',
  'POST /v1/alert-events/{id}/resolve': 'alert:write',
  ...crud('/v1/oncall/schedules', 'alert:read', 'alert:write'),
  'GET /v1/oncall/schedules/{id}/on-call': 'alert:read',
  'GET /v1/oncall/schedules/{id}/overrides': 'alert:read',
  'POST /v1/oncall/schedules/{id}/overrides': 'alert:write',
  'DELETE /v1/oncall/schedules/{id}/overrides/{override_id}': 'alert:write',
  ...crud('/v1/webhook-endpoints', 'alert:read', 'alert:write'),
  'POST /v1/webhook-endpoints/{id}/rotate-secret': 'alert:write',
  'POST /v1/webhook-endpoints/{id}/test': 'alert:write',
  'GET /v1/webhook-endpoints/{id}/deliveries': 'alert:read',
  'GET /v1/webhook-endpoints/{id}/deliveries/{delivery_id}': 'alert:read',
  'POST /v1/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver': 'alert:write',
};
