import type { AccountExport } from '@vantage/shared-protocol';
import { listChannels } from '../alerting/alert-channels.db.js';
import { listPolicies } from '../alerting/alert-policies.db.js';
import { toPolicy } from '../alerting/alert-policies.routes.js';
import { listSilences } from '../alerting/alert-silences.db.js';
import { listWindows } from '../alerting/maintenance-windows.db.js';
import { sameOwner } from '../alerting/route-kit.js';
import { toChannel } from '../alerting/view.js';
import type { AppDeps } from '../deps.js';
import { maskedConfig } from '../monitors/header-secrets.js';
import { groupsOf } from '../monitors/monitor-groups.db.js';
import { allMonitors } from '../monitors/monitors.db.js';
import { toExportMonitor } from '../monitors/view.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import { toEndpoint } from '../webhooks/views.js';
import { listEndpoints } from '../webhooks/webhook-endpoints.db.js';
import { toApiKey, toPat } from './access-keys.js';
import { toProfile } from './account.routes.js';
import { allAccessKeys, identitiesMetadata, membershipsOf, passkeysMetadata } from './account-export.db.js';
import type { UserRow } from './accounts.db.js';

/** Most webhook endpoints read for an export (an account has at most a few dozen). */
const ENDPOINTS_MAX = 1000;

/**
 * The data export of an account (docs/api/accounts.md "Data export"): its profile and every
 * personal resource (team resources are the team's and are exported per team, e.g.
 * `GET /v1/monitors/export?team_id=`): monitors as ExportMonitor with their groups (the monitor
 * export of docs/api/monitors.md: header secrets masked), alert policies, channels (secrets
 * masked as the API shows them), silences, maintenance windows, webhook endpoints (no secrets),
 * API key and PAT metadata (never secrets or hashes), team memberships, passkey and single
 * sign-on identity metadata. Dates are ISO 8601.
 */
export async function exportAccount(deps: Pick<AppDeps, 'sql' | 'config'>, user: UserRow): Promise<AccountExport> {
  const { sql } = deps;
  const owner = { user_id: user.id, team_id: null };
  const scope = sameOwner(owner);
  const box = secretBoxOf(deps.config);
  const [groups, monitors, policies, channels, silences, windows, endpoints, keys, memberships, passkeys, identities] = await Promise.all([
    groupsOf(sql, owner), allMonitors(sql, owner), listPolicies(sql, scope), listChannels(sql, scope), listSilences(sql, scope),
    listWindows(sql, scope), listEndpoints(sql, scope, 1, ENDPOINTS_MAX), allAccessKeys(sql, user.id), membershipsOf(sql, user.id),
    passkeysMetadata(sql, user.id), identitiesMetadata(sql, user.id),
  ]);
  const nameOf = new Map(groups.map((g) => [g.id, g.name]));
  // Rows go through JSON so Dates become ISO strings in every array alike.
  const plain = <T>(rows: T[]) => JSON.parse(JSON.stringify(rows)) as Record<string, unknown>[];
  return {
    version: 1, exported_at: new Date().toISOString(),
    profile: { ...toProfile(user), created_at: user.created_at.toISOString() },
    monitors: monitors.map((m) => ({ id: m.id, ...toExportMonitor({ ...m, config: maskedConfig(box, m.id, m.type, m.config) }, m.group_id ? nameOf.get(m.group_id) : undefined) })),
    monitor_groups: plain(groups.map((g) => ({ id: g.id, name: g.name, sort_order: g.sort_order }))),
    alert_policies: plain(policies.map(toPolicy)),
    alert_channels: plain(channels.map(toChannel)),
    alert_silences: plain(silences),
    maintenance_windows: plain(windows),
    webhook_endpoints: plain(endpoints.rows.map((e) => toEndpoint(e))),
    api_keys: plain(keys.filter((k) => k.kind === 'api_key').map(toApiKey)),
    personal_access_tokens: plain(keys.filter((k) => k.kind === 'pat').map(toPat)),
    team_memberships: plain(memberships),
    passkeys: plain(passkeys),
    oauth_identities: plain(identities),
  };
}
