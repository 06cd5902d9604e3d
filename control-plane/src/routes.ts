import type { Hono } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from './deps.js';
import { accountTokensRouter } from './accounts/account-tokens.routes.js';
import { accountRouter } from './accounts/account.routes.js';
import { adminAccountsRouter } from './accounts/admin-accounts.routes.js';
import { apiKeysRouter } from './accounts/api-keys.routes.js';
import { authRouter } from './accounts/auth.routes.js';
import { emailVerificationRouter } from './accounts/email-verification.routes.js';
import { enrollmentTokensRouter } from './nodes/enrollment-tokens.routes.js';
import { geoRouter } from './nodes/geo.routes.js';
import { installRouter } from './nodes/install.routes.js';
import { monitorHistoryRouter } from './checks/history.routes.js';
import { artifactsRouter } from './artifacts/artifacts.routes.js';
import { artifactUploadRouter } from './artifacts/upload.routes.js';
import { monitorGroupsRouter } from './monitors/monitor-groups.routes.js';
import { monitorTransferRouter } from './monitors/monitor-transfer.routes.js';
import { monitorsRouter } from './monitors/monitors.routes.js';
import { nodesRouter } from './nodes/nodes.routes.js';
import { adminNodesRouter } from './nodes/admin-nodes.routes.js';
import { probesRouter } from './probes/probes.routes.js';
import { registerEventWebhooks } from './webhooks/events-openapi.js';
import { webhookDeliveriesRouter } from './webhooks/webhook-deliveries.routes.js';
import { webhookEndpointsRouter } from './webhooks/webhook-endpoints.routes.js';
import { alertChannelsRouter } from './alerting/alert-channels.routes.js';
import { heartbeatCheckinRouter } from './control-checks/heartbeat-checkin.routes.js';
import { alertPoliciesRouter } from './alerting/alert-policies.routes.js';
import { alertNoiseRulesRouter } from './alerting/noise-rules.routes.js';
import { oncallSchedulesRouter } from './oncall/schedules.routes.js';
import { alertSilencesRouter } from './alerting/alert-silences.routes.js';
import { alertGroupsRouter } from './alerting/alert-groups.routes.js';
import { maintenanceWindowsRouter } from './alerting/maintenance-windows.routes.js';
import { alertEventsRouter } from './alerting/alert-events.routes.js';
import { teamsRouter } from './teams/teams.routes.js';
import { teamMembersRouter } from './teams/team-members.routes.js';
import { teamInvitesRouter } from './teams/team-invites.routes.js';

/**
 * Every feature's routers, mounted under their base paths by createApp: the one place that knows
 * all features' routes. Each factory (`<feature>/<resource>.routes.ts`) takes the app's deps and
 * returns a Hono router; a new feature adds its lines here.
 */
export function mountRoutes(app: Hono<any>, deps: AppDeps): void {
  app.route('/', installRouter(deps));
  app.route('/v1/auth', authRouter(deps));
  app.route('/v1/auth', emailVerificationRouter(deps));
  app.route('/v1/account', accountRouter(deps));
  app.route('/v1/account/api-keys', apiKeysRouter(deps));
  app.route('/v1/account/tokens', accountTokensRouter(deps));
  app.route('/v1/admin', adminAccountsRouter(deps));
  app.route('/v1/nodes', nodesRouter(deps));
  app.route('/v1/admin/nodes', adminNodesRouter(deps));
  app.route('/v1/nodes/artifacts', artifactUploadRouter(deps));
  app.route('/v1/enrollment-tokens', enrollmentTokensRouter(deps));
  app.route('/v1/geo', geoRouter(deps));
  app.route('/v1/probe', probesRouter(deps));
  // export/import before monitorsRouter's /{id} routes, so `export` is never read as an id
  app.route('/v1/monitors', monitorTransferRouter(deps));
  app.route('/v1/monitors', monitorsRouter(deps));
  app.route('/v1/monitors', monitorHistoryRouter(deps));
  app.route('/v1/monitors', artifactsRouter(deps));
  app.route('/v1/monitor-groups', monitorGroupsRouter(deps));
  app.route('/v1/webhook-endpoints', webhookEndpointsRouter(deps));
  app.route('/v1/webhook-endpoints', webhookDeliveriesRouter(deps));
  app.route('/v1/alert-channels', alertChannelsRouter(deps));
  app.route('/v1/alert-policies', alertPoliciesRouter(deps));
  app.route('/v1/alert-noise-rules', alertNoiseRulesRouter(deps));
  app.route('/v1/oncall/schedules', oncallSchedulesRouter(deps));
  app.route('/v1/alert-silences', alertSilencesRouter(deps));
  app.route('/v1/alert-groups', alertGroupsRouter(deps));
  app.route('/v1/maintenance-windows', maintenanceWindowsRouter(deps));
  app.route('/v1/alert-events', alertEventsRouter(deps));
  app.route('/v1/heartbeat', heartbeatCheckinRouter(deps));
  // teams before their members and invites: `/invites/accept` is matched before any `/{id}/…`
  app.route('/v1/teams', teamsRouter(deps));
  app.route('/v1/teams', teamMembersRouter(deps));
  app.route('/v1/teams', teamInvitesRouter(deps));
  registerEventWebhooks(app as OpenAPIHono<any>);
}
