import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';

/** A page module: its default export renders the page with the route's parameters. */
export type PageModule = { default: ComponentType<{ params: Record<string, string> }> };

/**
 * One route: a path pattern (`/monitors/:id`), the lazily loaded page, and whether it needs a
 * session (true), is for visitors without one (false: login, register), or is open to both ('any':
 * a shared dashboard's link).
 */
export interface Route { path: string; load: () => Promise<PageModule>; session: boolean | 'any' }

/** Every page of the console: each is its own chunk, loaded on first visit. */
export const ROUTES: Route[] = [
  { path: '/login', load: () => import('./pages/login/LoginPage.js'), session: false },
  { path: '/register', load: () => import('./pages/register/RegisterPage.js'), session: false },
  { path: '/monitors', load: () => import('./pages/monitors/MonitorsPage.js'), session: true },
  { path: '/monitors/new', load: () => import('./pages/monitor-form/MonitorFormPage.js'), session: true },
  { path: '/monitors/transfer', load: () => import('./pages/monitor-transfer/MonitorTransferPage.js'), session: true },
  { path: '/monitors/:id', load: () => import('./pages/monitor-detail/MonitorDetailPage.js'), session: true },
  { path: '/monitors/:id/edit', load: () => import('./pages/monitor-form/MonitorFormPage.js'), session: true },
  { path: '/probes', load: () => import('./pages/probe-new/ProbeFormPage.js'), session: true },
  { path: '/probes/:id', load: () => import('./pages/probe-result/ProbeResultPage.js'), session: true },
  { path: '/nodes', load: () => import('./pages/nodes/NodesPage.js'), session: true },
  { path: '/nodes/:id', load: () => import('./pages/node-detail/NodeDetailPage.js'), session: true },
  { path: '/api-keys', load: () => import('./pages/api-keys/ApiKeysPage.js'), session: true },
  { path: '/profile', load: () => import('./pages/profile/ProfilePage.js'), session: true },
  { path: '/alerts', load: () => import('./pages/alert-events/AlertEventsPage.js'), session: true },
  { path: '/alerts/channels', load: () => import('./pages/alert-channels/ChannelsPage.js'), session: true },
  { path: '/alerts/policies', load: () => import('./pages/alert-policies/PoliciesPage.js'), session: true },
  { path: '/alerts/silences', load: () => import('./pages/alert-silences/SilencesPage.js'), session: true },
  { path: '/alerts/groups', load: () => import('./pages/alert-groups/GroupsPage.js'), session: true },
  { path: '/alerts/noise', load: () => import('./pages/alert-noise/NoiseRulesPage.js'), session: true },
  { path: '/alerts/maintenance', load: () => import('./pages/maintenance/MaintenancePage.js'), session: true },
  { path: '/webhooks', load: () => import('./pages/webhooks/WebhooksPage.js'), session: true },
  { path: '/webhooks/:id', load: () => import('./pages/webhook-deliveries/DeliveriesPage.js'), session: true },
  { path: '/security', load: () => import('./pages/security/SecurityPage.js'), session: true },
  { path: '/security/link', load: () => import('./pages/security-link/LinkFinishPage.js'), session: true },
  { path: '/status-pages', load: () => import('./pages/status-pages/StatusPagesPage.js'), session: true },
  { path: '/status-pages/new', load: () => import('./pages/status-page-form/StatusPageFormPage.js'), session: true },
  { path: '/status-pages/:id', load: () => import('./pages/status-page-form/StatusPageFormPage.js'), session: true },
  { path: '/incidents', load: () => import('./pages/incidents/IncidentsPage.js'), session: true },
  { path: '/incidents/:id', load: () => import('./pages/incident-detail/IncidentDetailPage.js'), session: true },
  { path: '/dashboards', load: () => import('./pages/dashboards/DashboardsPage.js'), session: true },
  { path: '/dashboards/:id', load: () => import('./pages/dashboard/DashboardPage.js'), session: true },
  { path: '/dashboards/:id/widgets', load: () => import('./pages/dashboard-widgets/WidgetsEditorPage.js'), session: true },
  { path: '/as-code', load: () => import('./pages/as-code/AsCodePage.js'), session: true },
  { path: '/verify', load: () => import('./pages/verify/VerifyReportPage.js'), session: 'any' },
  { path: '/signing-keys', load: () => import('./pages/signing-keys/SigningKeysPage.js'), session: 'any' },
  { path: '/shared/dashboards/:token', load: () => import('./pages/shared-dashboard/SharedDashboardPage.js'), session: 'any' },
  { path: '/agent-obs', load: () => import('./pages/agent-obs/AgentObsPage.js'), session: true },
  { path: '/agent-obs/new', load: () => import('./pages/agent-obs-form/AgentObsFormPage.js'), session: true },
  { path: '/agent-obs/events', load: () => import('./pages/agent-obs-stream/AgentObsStreamPage.js'), session: true },
  { path: '/agent-obs/:id', load: () => import('./pages/agent-obs-detail/AgentObsDetailPage.js'), session: true },
  { path: '/agent-obs/:id/edit', load: () => import('./pages/agent-obs-form/AgentObsFormPage.js'), session: true },
  { path: '/mcp-tokens', load: () => import('./pages/mcp-tokens/McpTokensPage.js'), session: true },
  { path: '/mcp-sessions', load: () => import('./pages/mcp-sessions/McpSessionsPage.js'), session: true },
  { path: '/mcp-tool-calls', load: () => import('./pages/mcp-calls/McpToolCallsPage.js'), session: true },
  { path: '/mcp-tokens/:id', load: () => import('./pages/mcp-token/McpTokenPage.js'), session: true },
  { path: '/billing', load: () => import('./pages/billing/BillingPage.js'), session: true },
  { path: '/billing/invoices', load: () => import('./pages/billing-invoices/InvoicesPage.js'), session: true },
  { path: '/billing/invoices/:id', load: () => import('./pages/billing-invoice/InvoicePage.js'), session: true },
  { path: '/billing/entitlements', load: () => import('./pages/billing-entitlements/EntitlementsPage.js'), session: true },
  { path: '/billing/admin', load: () => import('./pages/billing-admin/BillingAdminPage.js'), session: true },
  { path: '/verdicts', load: () => import('./pages/verdicts/VerdictsPage.js'), session: true },
  { path: '/verdicts/:id', load: () => import('./pages/verdict/VerdictPage.js'), session: true },
  { path: '/certificates', load: () => import('./pages/certificates/CertificatesPage.js'), session: true },
  { path: '/certificates/orders', load: () => import('./pages/cert-orders/OrdersPage.js'), session: true },
  { path: '/certificates/orders/:id', load: () => import('./pages/cert-order/OrderPage.js'), session: true },
  { path: '/dns-credentials', load: () => import('./pages/dns-credentials/DnsCredentialsPage.js'), session: true },
  { path: '/teams', load: () => import('./pages/teams/TeamsPage.js'), session: true },
  { path: '/teams/accept', load: () => import('./pages/team-accept/AcceptInvitePage.js'), session: 'any' },
  { path: '/teams/:id', load: () => import('./pages/team/TeamPage.js'), session: true },
  { path: '/oncall', load: () => import('./pages/oncall/OncallPage.js'), session: true },
  { path: '/oncall/contacts', load: () => import('./pages/oncall-contacts/ContactsPage.js'), session: true },
  { path: '/oncall/:id', load: () => import('./pages/oncall-schedule/SchedulePage.js'), session: true },
  { path: '/device', load: () => import('./pages/device-login/DeviceLoginPage.js'), session: true },
];

/** The route matching `path` and its parameters, or null. */
export function match(path: string): { route: Route; params: Record<string, string> } | null {
  const segs = path.replace(/\/+$/, '').split('/');
  for (const route of ROUTES) {
    const pattern = route.path.split('/');
    if (pattern.length !== segs.length) continue;
    const params: Record<string, string> = {};
    if (pattern.every((p, i) => (p.startsWith(':') ? ((params[p.slice(1)] = decodeURIComponent(segs[i]!)), true) : p === segs[i]))) return { route, params };
  }
  return null;
}

/** Go to `url` (path and query) without reloading; `replace` keeps the history entry count. */
export function navigate(url: string, replace = false): void {
  if (replace) history.replaceState(null, '', url); else history.pushState(null, '', url);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The current location (`pathname` and `search`), re-rendering on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, bump] = useState(0);
  useEffect(() => {
    const on = () => bump((n) => n + 1);
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}
