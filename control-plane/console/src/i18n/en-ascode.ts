/**
 * English strings of monitoring as code in the console: the as-code page (export, managed
 * resources) and the "managed by file" badge and note of every page of a markable kind, spread
 * into the table in en.ts.
 */
export const enAsCode = {
  'nav.as_code': 'As code',

  'managed.badge': 'Managed by file',
  'managed.key': 'Its name in the file: {key}.',
  'managed.read_only': 'Resources managed by a file are read-only here. To change one, edit its file and run vantage apply (or let the control plane provision it).',
  'managed.unmark': 'To manage one here again, unmark it, through the API (DELETE /v1/as-code/marks/{kind}/{id}) or on',
  'managed.unmark_link': 'the monitoring as code page.',
  'managed.locked': 'Managed by file {file}: read-only here',

  'ascode.title': 'Monitoring as code',
  'ascode.intro': 'Monitors, alerting, webhook endpoints, status pages and dashboards can be kept in files, reviewed in git and applied with the vantage CLI (vantage plan, vantage apply) or by the control plane at start.',
  'ascode.export': 'Export as a file',
  'ascode.export_hint': 'Download your resources as a version 1 file, the same file vantage export writes. Secrets the API never shows (channel secrets, status page passwords) are written as environment variable references. vantage plan with this file against this account shows no changes.',
  'ascode.format': 'Format',
  'ascode.download': 'Download',
  'ascode.managed': 'Managed by files',
  'ascode.managed_hint': 'Resources applied from a file are read-only in the console. Unmark one to change it here: it stays as it is, prune no longer deletes it, and a later apply of a file that still names it takes it over again.',
  'ascode.managed_empty': 'Nothing is managed by files yet. Apply a file with vantage apply, or have the control plane provision files (VANTAGE_PROVISION_FILES).',
  'ascode.kind': 'Kind',
  'ascode.key': 'Name in the file',
  'ascode.file': 'File',
  'ascode.applied': 'Last applied',
  'ascode.unmark': 'Unmark',
  'ascode.unmark_named': 'Unmark {key}',
  'ascode.unmark_confirm': 'Unmark "{key}"? It stays as it is, but is no longer managed by {file}.',
  'ascode.kind.monitor_group': 'Monitor group',
  'ascode.kind.alert_channel': 'Alert channel',
  'ascode.kind.webhook_endpoint': 'Webhook endpoint',
  'ascode.kind.monitor': 'Monitor',
  'ascode.kind.alert_policy': 'Alert policy',
  'ascode.kind.alert_silence': 'Silence',
  'ascode.kind.maintenance_window': 'Maintenance window',
  'ascode.kind.status_page': 'Status page',
  'ascode.kind.dashboard': 'Dashboard',
} as const;
