import type { Hono } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from './deps.js';
import { accountTokensRouter } from './accounts/account-tokens.routes.js';
import { accountRouter } from './accounts/account.routes.js';
import { accountDeletionRouter, accountRestoreRouter } from './accounts/account-deletion.routes.js';
import { phoneRouter } from './accounts/phone.routes.js';
import { accountExportRouter } from './accounts/account-export.routes.js';
import { adminAccountsRouter } from './accounts/admin-accounts.routes.js';
import { apiKeysRouter } from './accounts/api-keys.routes.js';
import { authRouter } from './accounts/auth.routes.js';
import { sessionCookieRouter } from './accounts/session-cookie.routes.js';
import { emailVerificationRouter } from './accounts/email-verification.routes.js';
import { passkeyLoginRouter } from './accounts/passkey-login.routes.js';
import { passkeysRouter } from './accounts/passkeys.routes.js';
import { oauthRouter } from './accounts/oauth.routes.js';
import { oauthIdentitiesRouter } from './accounts/oauth-identities.routes.js';
import { passwordChangeRouter } from './accounts/password-change.routes.js';
import { passwordResetRouter } from './accounts/password-reset.routes.js';
import { deviceLoginRouter } from './accounts/device-login.routes.js';
import { emailOtpRouter } from './accounts/email-otp.routes.js';
import { recoveryCodesRouter } from './accounts/recovery-codes.routes.js';
import { securityRouter } from './accounts/two-factor-policy.routes.js';
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
import { diagnoseRouter } from './diagnose/diagnose.routes.js';
import { registerEventWebhooks } from './webhooks/events-openapi.js';
import { webhookDeliveriesRouter } from './webhooks/webhook-deliveries.routes.js';
import { webhookEndpointsRouter } from './webhooks/webhook-endpoints.routes.js';
import { alertChannelsRouter } from './alerting/alert-channels.routes.js';
import { heartbeatCheckinRouter } from './control-checks/heartbeat-checkin.routes.js';
import { alertPoliciesRouter } from './alerting/alert-policies.routes.js';
import { alertNoiseRulesRouter } from './alerting/noise-rules.routes.js';
import { oncallSchedulesRouter } from './oncall/schedules.routes.js';
import { oncallNotificationRulesRouter } from './oncall/notification-rules.routes.js';
import { alertSilencesRouter } from './alerting/alert-silences.routes.js';
import { alertGroupsRouter } from './alerting/alert-groups.routes.js';
import { maintenanceWindowsRouter } from './alerting/maintenance-windows.routes.js';
import { alertEventsRouter } from './alerting/alert-events.routes.js';
import { teamsRouter } from './teams/teams.routes.js';
import { teamMembersRouter } from './teams/team-members.routes.js';
import { teamInvitesRouter } from './teams/team-invites.routes.js';
import { ipInfoRouter } from './lookups/ip-info.routes.js';
import { dnsRecordsRouter } from './lookups/dns-records.routes.js';
import { ipReputationRouter } from './lookups/ip-reputation.routes.js';
import { icpAdminRouter, icpRouter } from './lookups/icp.routes.js';
import { lookupUsageRouter } from './lookups/lookup-usage.routes.js';
import { statusPagesRouter } from './status-pages/status-pages.routes.js';
import { publicStatusPagesRouter } from './status-pages/public.routes.js';
import { incidentsRouter } from './incidents/incidents.routes.js';
import { asCodeExportRouter } from './as-code/as-code-export.routes.js';
import { asCodeMarksRouter } from './as-code/as-code-marks.routes.js';
import { statusPageSubscribersRouter } from './status-pages/subscribers.routes.js';
import { whoisSslRouter } from './lookups/whois-ssl.routes.js';
import { mcpTokensRouter } from './mcp/mcp-tokens.routes.js';
import { mcpActivityRouter } from './mcp/mcp-activity.routes.js';
import { agentObsMonitorsRouter } from './agent-obs/monitors.routes.js';
import { agentObsEventsRouter } from './agent-obs/events.routes.js';
import { dashboardsRouter } from './dashboards/dashboards.routes.js';
import { publicDashboardsRouter } from './dashboards/public.routes.js';
import { adminAttestRouter, attestRouter } from './attestation/attest.routes.js';
import { verdictOrdersRouter } from './verdicts/verdicts.routes.js';
import { complianceRouter } from './compliance/compliance.routes.js';
import { certOrdersRouter } from './certificates/orders.routes.js';
import { certificatesRouter } from './certificates/certificates.routes.js';
import { dnsCredentialsRouter } from './certificates/dns-credentials.routes.js';
import { API_DOCS_PATH, apiDocsRouter } from './http/api-docs.routes.js';
import { apiCallQuota } from './billing/api-usage.js';
import { billingRouter } from './billing/billing.routes.js';
import { adminBillingRouter, entitlementsRouter } from './billing/entitlements.routes.js';
import { stripeWebhookRouter } from './billing/stripe-webhook.routes.js';
import { deprecatedFields } from './http/deprecated-fields.js';
import { domainsRouter } from './domains/domains.routes.js';
import { blogRouter } from './blog/blog.routes.js';
import { adminBlogRouter } from './blog/admin-blog.routes.js';
import { leaderboardsRouter } from './leaderboards/leaderboards.routes.js';
import { adminLeaderboardsRouter } from './leaderboards/admin-reports.routes.js';
import { adminLeaderboardInputsRouter } from './leaderboards/admin-inputs.routes.js';

/**
 * Every feature's routers, mounted under their base paths by createApp: the one place that knows
 * all features' routes. Each factory (`<feature>/<resource>.routes.ts`) takes the app's deps and
 * returns a Hono router; a new feature adds its lines here.
 */
export function mountRoutes(app: Hono<any>, deps: AppDeps): void {
  // Field names of earlier API revisions, renamed before any route validates (docs/api/versioning.md).
  app.use('*', deprecatedFields(app as OpenAPIHono<any>, deps.config));
  // The daily API call quota of keyed callers (billing/api-usage.ts), before any /v1 route runs.
  app.use('/v1/*', apiCallQuota(deps));
  app.route(API_DOCS_PATH, apiDocsRouter(deps));
  app.route('/', installRouter(deps));
  app.route('/v1/auth', authRouter(deps));
  app.route('/v1/auth', sessionCookieRouter(deps));
  app.route('/v1/auth', emailVerificationRouter(deps));
  app.route('/v1/account', accountRouter(deps));
  // Account lifecycle (docs/api/accounts.md "Account lifecycle"): phone binding, deletion, restore.
  app.route('/v1/account', phoneRouter(deps));
  app.route('/v1/account', accountDeletionRouter(deps));
  app.route('/v1/account', accountExportRouter(deps));
  app.route('/v1/auth', accountRestoreRouter(deps));
  app.route('/v1/account/api-keys', apiKeysRouter(deps));
  app.route('/v1/account/tokens', accountTokensRouter(deps));
  app.route('/v1/auth/passkeys', passkeyLoginRouter(deps));
  app.route('/v1/account/passkeys', passkeysRouter(deps));
  app.route('/v1/auth/oauth', oauthRouter(deps));
  app.route('/v1/account/identities', oauthIdentitiesRouter(deps));
  app.route('/v1/auth', passwordResetRouter(deps));
  app.route('/v1/account', passwordChangeRouter(deps));
  // QR-code login and e-mail codes span /v1/auth and /v1/account; security summary and recovery codes
  app.route('/v1', deviceLoginRouter(deps));
  app.route('/v1', emailOtpRouter(deps));
  app.route('/v1/account', securityRouter(deps));
  app.route('/v1/account', recoveryCodesRouter(deps));
  app.route('/v1/admin', adminAccountsRouter(deps));
  app.route('/v1/nodes', nodesRouter(deps));
  app.route('/v1/admin/nodes', adminNodesRouter(deps));
  app.route('/v1/nodes/artifacts', artifactUploadRouter(deps));
  app.route('/v1/enrollment-tokens', enrollmentTokensRouter(deps));
  app.route('/v1/geo', geoRouter(deps));
  app.route('/v1/probe', probesRouter(deps));
  app.route('/v1/diagnose', diagnoseRouter(deps));
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
  app.route('/v1/oncall/notification-rules', oncallNotificationRulesRouter(deps));
  app.route('/v1/alert-silences', alertSilencesRouter(deps));
  app.route('/v1/alert-groups', alertGroupsRouter(deps));
  app.route('/v1/maintenance-windows', maintenanceWindowsRouter(deps));
  app.route('/v1/alert-events', alertEventsRouter(deps));
  app.route('/v1/heartbeat', heartbeatCheckinRouter(deps));
  // teams before their members and invites: `/invites/accept` is matched before any `/{id}/…`
  app.route('/v1/teams', teamsRouter(deps));
  app.route('/v1/teams', teamMembersRouter(deps));
  app.route('/v1/teams', teamInvitesRouter(deps));
  // Information lookups (docs/api/lookups.md): public, answered from local data and real protocol exchanges.
  app.route('/v1/info', ipInfoRouter(deps));
  app.route('/v1/info', dnsRecordsRouter(deps));
  app.route('/v1/info', icpRouter(deps));
  app.route('/v1/ip', ipReputationRouter(deps));
  app.route('/v1/admin', icpAdminRouter(deps));
  app.route('/v1/account', lookupUsageRouter(deps));
  app.route('/v1/status-pages', statusPagesRouter(deps));
  app.route('/v1/incidents', incidentsRouter(deps));
  app.route('/', publicStatusPagesRouter(deps));
  app.route('/', statusPageSubscribersRouter(deps));
  app.route('/v1/info', whoisSslRouter(deps));
  // MCP tokens and what was done with them (docs/api/mcp.md); the MCP server itself listens apart (mcp/listener.ts).
  app.route('/v1/mcp/tokens', mcpTokensRouter(deps));
  app.route('/v1/mcp', mcpActivityRouter(deps));
  app.route('/v1/agent-obs', agentObsMonitorsRouter(deps));
  app.route('/v1/agent-obs', agentObsEventsRouter(deps));
  // Dashboards and their shared public view (docs/api/dashboards.md).
  app.route('/v1/dashboards', dashboardsRouter(deps));
  app.route('/v1/public/dashboards', publicDashboardsRouter(deps));
  // Verdict orders and attestation (docs/api/verdicts.md): signed reports, public keys and verification.
  app.route('/v1/verdict/orders', verdictOrdersRouter(deps));
  app.route('/v1/attest', attestRouter(deps));
  app.route('/v1/admin/attest', adminAttestRouter(deps));
  app.route('/v1/compliance', complianceRouter(deps));
  // Plans, billing and entitlements (docs/api/billing.md).
  app.route('/v1/billing', billingRouter(deps));
  app.route('/v1/billing', stripeWebhookRouter(deps));
  app.route('/v1/entitlements', entitlementsRouter(deps));
  app.route('/v1/admin', adminBillingRouter(deps));
  // Certificates over ACME and DNS credentials (docs/api/certificates.md); orders before /{id}.
  app.route('/v1/certificates/orders', certOrdersRouter(deps));
  app.route('/v1/certificates', certificatesRouter(deps));
  app.route('/v1/dns-credentials', dnsCredentialsRouter(deps));
  // Monitoring as code (docs/api/as-code.md): which resources files manage; the account as a file.
  app.route('/v1/as-code', asCodeMarksRouter(deps));
  app.route('/v1/as-code', asCodeExportRouter(app));
  // Leaderboards (docs/api/leaderboards.md): public reports and opt-outs, administrators' reports, monitors and decisions.
  app.route('/v1/leaderboards', leaderboardsRouter(deps));
  app.route('/v1/admin/leaderboards', adminLeaderboardsRouter(deps));
  app.route('/v1/admin', adminLeaderboardInputsRouter(deps));
  // The blog (docs/api/blog.md): published posts and their feed; administrators write them.
  app.route('/v1/blog', blogRouter(deps));
  app.route('/v1/admin/blog/posts', adminBlogRouter(deps));
  // Domain combinations (docs/api/domains.md).
  app.route('/v1/domains', domainsRouter(deps));
  registerEventWebhooks(app as OpenAPIHono<any>);
}
