/**
 * Stable `operationId`s for the generated OpenAPI document (docs/api/conventions.md "OpenAPI"):
 * client generators name their methods after them, so each is derived from the method and path
 * alone, never from a summary that may be reworded. A route declared with its own `operationId`
 * in `createRoute` keeps it. The list is pinned in operation-ids.txt (operation-ids.test.ts):
 * a rename shows up there.
 */

/** Routes the rules below would name badly: `METHOD /path` → operationId. */
const OVERRIDES: Record<string, string> = {
  'POST /v1/status-pages/{id}/domain-check': 'checkStatusPageDomain',
  'GET /v1/status-pages/{id}/subscribers': 'listStatusPageSubscribers',
  'DELETE /v1/status-pages/{id}/subscribers/{subscriber_id}': 'removeStatusPageSubscriber',
  'POST /v1/incidents/{id}/updates': 'createIncidentUpdate',
  'GET /status/{slug}': 'getStatusPageHtml',
  'POST /status/{slug}': 'unlockStatusPage',
  'GET /status/{slug}/feed.atom': 'getStatusPageFeed',
  'POST /v1/public/status-pages/{slug}/subscribers': 'subscribeToStatusPage',
  'GET /status/{slug}/subscribers/confirm': 'getStatusPageSubscriptionConfirmation',
  'POST /status/{slug}/subscribers/confirm': 'confirmStatusPageSubscription',
  'GET /status/{slug}/subscribers/unsubscribe': 'getStatusPageUnsubscribe',
  'POST /status/{slug}/subscribers/unsubscribe': 'unsubscribeFromStatusPage',
  'GET /v1/info/whois': 'getWhois',
  'GET /v1/info/ssl': 'getSslAudit',
  'POST /v1/auth/register': 'register',
  'POST /v1/auth/login': 'login',
  'POST /v1/auth/refresh': 'refreshSession',
  'POST /v1/auth/session/refresh': 'refreshCookieSession',
  'POST /v1/auth/logout': 'logout',
  'POST /v1/account/password': 'changePassword',
  'POST /v1/auth/password/forgot': 'requestPasswordReset',
  'POST /v1/auth/password/reset': 'resetPassword',
  'GET /v1/auth/verify-email': 'getEmailVerification',
  'POST /v1/auth/verify-email': 'verifyEmail',
  'POST /v1/auth/verify-email/resend': 'resendVerificationEmail',
  'GET /v1/account/tokens': 'listPersonalAccessTokens',
  'POST /v1/account/tokens': 'createPersonalAccessToken',
  'DELETE /v1/account/tokens/{id}': 'deletePersonalAccessToken',
  'POST /v1/account/2fa/setup': 'setupTwoFactor',
  'POST /v1/account/2fa/enable': 'enableTwoFactor',
  'POST /v1/account/2fa/disable': 'disableTwoFactor',
  'POST /v1/auth/oauth/2fa': 'completeOAuthTwoFactor',
  'GET /v1/nodes/connect': 'connectNode',
  'PUT /v1/nodes/artifacts/{sha256}': 'uploadNodeArtifact',
  'GET /v1/openapi.json': 'getOpenApiDocument',
  'GET /v1/info/ip': 'getIpInfo',
  'GET /v1/info/dns': 'getDnsRecords',
  'GET /v1/info/icp': 'getIcpFiling',
  'POST /v1/admin/icp-records': 'importIcpRecords',
  'POST /v1/leaderboards/opt-outs': 'createLeaderboardOptOut',
  'POST /v1/admin/leaderboards/{id}/status': 'moveAdminLeaderboard',
  'POST /v1/admin/leaderboards/{id}/errata': 'correctAdminLeaderboard',
  'POST /v1/admin/leaderboard-opt-outs/{id}/decision': 'decideAdminLeaderboardOptOut',
  'GET /v1/blog/feed.atom': 'getBlogFeed',
  'POST /v1/domains/combos/preview': 'previewDomainCombos',
  'GET /metrics': 'getMetrics',
  'GET /install.sh': 'getInstallScript',
  'GET /install/agent.tar.gz': 'getAgentBundle',
  'GET /install/agent.tar.gz.sha256': 'getAgentBundleChecksum',
  'GET /v1/monitors/export': 'exportMonitors',
  // A headers analysis is one thing, not many headers.
  'POST /v1/probe/headers': 'createProbeHeadersAnalysis',
  'POST /v1/monitors/import': 'importMonitors',
  'POST /v1/monitors/{id}/heartbeat/rotate': 'rotateMonitorHeartbeatToken',
  'GET /v1/monitors/{id}/stream': 'streamMonitor',
  'GET /v1/probe/tasks/{task_id}/stream': 'streamProbeTask',
  'POST /v1/webhook-endpoints/{id}/rotate-secret': 'rotateWebhookEndpointSecret',
  'POST /v1/heartbeat/{token}': 'sendHeartbeat',
  'GET /v1/heartbeat/{token}': 'sendHeartbeatGet',
  'POST /v1/heartbeat/{token}/{action}': 'sendHeartbeatAction',
  'GET /v1/heartbeat/{token}/{action}': 'sendHeartbeatActionGet',
  'GET /v1/alert-channels/recipients/confirm': 'getAlertRecipientConfirmation',
  'POST /v1/oncall/schedules/{id}/overrides': 'createOncallScheduleOverride',
  'GET /v1/oncall/schedules/{id}/on-call': 'getOncallScheduleOnCall',
  'POST /v1/alert-channels/recipients/confirm': 'confirmAlertRecipient',
  'GET /v1/alert-channels/recipients/unsubscribe': 'getAlertRecipientUnsubscribe',
  'POST /v1/alert-channels/recipients/unsubscribe': 'unsubscribeAlertRecipient',
  'POST /v1/alert-channels/{id}/recipients/opt-in': 'sendAlertRecipientOptIn',
};

/** Path segments that name a namespace, not a resource: left out of names (`/v1/probe/http` → createProbeHttp keeps `probe`). */
const SKIPPED = new Set(['v1', 'account']);

/** Segment words that are not plurals although they end in s. */
const NOT_PLURAL = new Set(['stats', 'status', 'dns', 'https']);

/** `{id}` → true. */
function isParam(segment: string): boolean {
  return segment.startsWith('{');
}

/** A plural collection segment (`monitors`, `state-changes`, `cities`). */
function isPlural(segment: string): boolean {
  const last = segment.split('-').at(-1)!;
  return last.endsWith('s') && !NOT_PLURAL.has(last);
}

/** `policies` → `policy`, `deliveries` → `delivery`, `monitors` → `monitor`; other words unchanged. */
function singular(segment: string): string {
  if (!isPlural(segment)) return segment;
  if (segment.endsWith('ies')) return `${segment.slice(0, -3)}y`;
  return segment.slice(0, -1);
}

/** `alert-channels` → `AlertChannels`, `2fa` → `2fa`. */
function pascal(segment: string): string {
  return segment.split(/[-_.]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * The operationId of one operation: an override for the few irregular routes, else a verb from the
 * method and the path's shape and the resources named on the way, singular where an id follows:
 * `GET /v1/monitors` listMonitors, `POST /v1/monitors` createMonitor, `GET|PATCH|DELETE
 * /v1/monitors/{id}` getMonitor/updateMonitor/deleteMonitor, `POST /v1/monitors/{id}/pause`
 * pauseMonitor, `GET /v1/monitors/{id}/checks` listMonitorChecks, `GET /v1/monitors/{id}/uptime`
 * getMonitorUptime, `POST /v1/probe/http` createProbeHttp.
 * @param method lower or upper case HTTP method
 * @param path OpenAPI path with `{param}` segments
 */
export function operationIdFor(method: string, path: string): string {
  const verb = method.toUpperCase();
  const override = OVERRIDES[`${verb} ${path}`];
  if (override) return override;
  const segments = path.split('/').filter((s) => s !== '' && !SKIPPED.has(s));
  const last = segments.at(-1) ?? '';
  // Every literal segment followed by an id names one resource: singular.
  const nouns = segments.map((s, i) => (isParam(s) ? '' : isParam(segments[i + 1] ?? '') ? singular(s) : s)).filter(Boolean);
  if (isParam(last)) {
    const action = { GET: 'get', PATCH: 'update', PUT: 'replace', DELETE: 'delete', POST: 'post' }[verb] ?? verb.toLowerCase();
    return action + nouns.map(pascal).join('');
  }
  const previous = segments.at(-2) ?? '';
  if (verb === 'POST' && isParam(previous)) {
    // An action on one resource: POST /v1/monitors/{id}/pause → pauseMonitor.
    const [action, ...rest] = nouns.slice(-1)[0]!.split('-');
    return action + nouns.slice(0, -1).map(pascal).join('') + rest.map(pascal).join('');
  }
  if (isPlural(last)) {
    if (verb === 'GET') return `list${nouns.map(pascal).join('')}`;
    if (verb === 'POST') return `create${[...nouns.slice(0, -1), singular(last)].map(pascal).join('')}`;
  }
  const action = { GET: 'get', POST: 'create', PATCH: 'update', PUT: 'replace', DELETE: 'delete' }[verb] ?? verb.toLowerCase();
  return action + nouns.map(pascal).join('');
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Give every operation of an OpenAPI document without one its {@link operationIdFor} id, in place.
 * @returns the same document
 */
export function addOperationIds<T extends { paths?: Record<string, Record<string, unknown>> }>(doc: T): T {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as { operationId?: string } | undefined;
      if (op && !op.operationId) op.operationId = operationIdFor(method, path);
    }
  }
  return doc;
}
