import type { enAsCode } from './en-ascode.js';

/** Simplified Chinese strings of monitoring as code in the console, spread into the table in cn.ts. */
export const cnAsCode: Record<keyof typeof enAsCode, string> = {
  'nav.as_code': '配置即代码',

  'managed.badge': '由文件管理',
  'managed.key': '它在文件中的名称：{key}。',
  'managed.read_only': '由文件管理的资源在此只读。要修改，请编辑其文件并运行 vantage apply（或由控制平面自动应用）。',
  'managed.unmark': '要在此重新管理它，请取消标记：通过 API（DELETE /v1/as-code/marks/{kind}/{id}）或在',
  'managed.unmark_link': '配置即代码页面。',
  'managed.locked': '由文件 {file} 管理：在此只读',

  'ascode.title': '配置即代码',
  'ascode.intro': '监控、告警、Webhook 端点、状态页和仪表盘可以保存在文件中，在 git 中评审，并用 vantage 命令行（vantage plan、vantage apply）或由控制平面在启动时应用。',
  'ascode.export': '导出为文件',
  'ascode.export_hint': '将你的资源下载为第 1 版文件，与 vantage export 写出的文件相同。API 从不显示的机密（渠道机密、状态页密码）写为环境变量引用。用此文件对本账户运行 vantage plan 不会显示任何更改。',
  'ascode.format': '格式',
  'ascode.download': '下载',
  'ascode.managed': '由文件管理',
  'ascode.managed_hint': '从文件应用的资源在控制台中只读。取消标记后即可在此修改：它保持原样，prune 不再删除它；之后应用仍包含它的文件时会再次接管它。',
  'ascode.managed_empty': '还没有由文件管理的资源。用 vantage apply 应用文件，或让控制平面自动应用文件（VANTAGE_PROVISION_FILES）。',
  'ascode.kind': '类型',
  'ascode.key': '文件中的名称',
  'ascode.file': '文件',
  'ascode.applied': '上次应用',
  'ascode.unmark': '取消标记',
  'ascode.unmark_named': '取消标记 {key}',
  'ascode.unmark_confirm': '取消标记“{key}”？它保持原样，但不再由 {file} 管理。',
  'ascode.kind.monitor_group': '监控分组',
  'ascode.kind.alert_channel': '通知渠道',
  'ascode.kind.webhook_endpoint': 'Webhook 端点',
  'ascode.kind.monitor': '监控',
  'ascode.kind.alert_policy': '告警策略',
  'ascode.kind.alert_silence': '静默',
  'ascode.kind.maintenance_window': '维护窗口',
  'ascode.kind.status_page': '状态页',
  'ascode.kind.dashboard': '仪表盘',
};
