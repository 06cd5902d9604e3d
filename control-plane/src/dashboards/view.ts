import type { Dashboard, PublicDashboard, Widget } from '@vantage/shared-protocol';
import type { DashboardRow } from './dashboards.db.js';

/** Where a shared dashboard is seen in a browser: the console's public page of its token. */
export function shareUrl(base_url: string, share_token: string): string {
  return `${base_url}/shared/dashboards/${share_token}`;
}

/**
 * A dashboard as its owner sees it (docs/api/dashboards.md): `widgets` only when `with_widgets`
 * (single reads), `template_key` omitted for a blank one, the share token and its URL always.
 */
export function toDashboard(row: DashboardRow, base_url: string, with_widgets: boolean): Dashboard {
  return {
    id: row.id, team_id: row.team_id, name: row.name, description: row.description, is_public: row.is_public, layout: row.layout,
    ...(row.template_key ? { template_key: row.template_key } : {}),
    version: row.version, widget_count: row.widgets.length,
    ...(with_widgets ? { widgets: row.widgets } : {}),
    share_token: row.share_token, share_url: shareUrl(base_url, row.share_token),
    created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/** A widget as the public sees it: its data source reduced to kind and metric (no monitor ids). */
export function toPublicWidget(w: Widget): Widget {
  const source = w.data_source as { kind: string; metric: string } | null;
  return { ...w, data_source: source ? { kind: source.kind, metric: source.metric } : null };
}

/** A shared dashboard as anyone with its link sees it: no id, owner, team, token or monitor ids. */
export function toPublicDashboard(row: DashboardRow): PublicDashboard {
  return {
    name: row.name, description: row.description, layout: row.layout, version: row.version, widget_count: row.widgets.length,
    widgets: row.widgets.map(toPublicWidget), updated_at: row.updated_at.toISOString(),
  };
}
