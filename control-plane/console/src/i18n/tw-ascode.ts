import type { enAsCode } from './en-ascode.js';

/** Traditional Chinese strings of monitoring as code in the console, spread into the table in tw.ts. */
export const twAsCode: Record<keyof typeof enAsCode, string> = {
  'nav.as_code': '設定即程式碼',

  'managed.badge': '由檔案管理',
  'managed.key': '它在檔案中的名稱：{key}。',
  'managed.read_only': '由檔案管理的資源在此唯讀。要修改，請編輯其檔案並執行 vantage apply（或由控制平面自動套用）。',
  'managed.unmark': '要在此重新管理它，請取消標記：透過 API（DELETE /v1/as-code/marks/{kind}/{id}）或在',
  'managed.unmark_link': '設定即程式碼頁面。',
  'managed.locked': '由檔案 {file} 管理：在此唯讀',

  'ascode.title': '設定即程式碼',
  'ascode.intro': '監控、告警、Webhook 端點、狀態頁與儀表板可以保存在檔案中，在 git 中審查，並以 vantage 命令列（vantage plan、vantage apply）或由控制平面在啟動時套用。',
  'ascode.export': '匯出為檔案',
  'ascode.export_hint': '將你的資源下載為第 1 版檔案，與 vantage export 寫出的檔案相同。API 從不顯示的機密（管道機密、狀態頁密碼）寫為環境變數參照。以此檔案對本帳戶執行 vantage plan 不會顯示任何變更。',
  'ascode.format': '格式',
  'ascode.download': '下載',
  'ascode.managed': '由檔案管理',
  'ascode.managed_hint': '從檔案套用的資源在主控台中唯讀。取消標記後即可在此修改：它保持原樣，prune 不再刪除它；之後套用仍包含它的檔案時會再次接管它。',
  'ascode.managed_empty': '還沒有由檔案管理的資源。以 vantage apply 套用檔案，或讓控制平面自動套用檔案（VANTAGE_PROVISION_FILES）。',
  'ascode.kind': '類型',
  'ascode.key': '檔案中的名稱',
  'ascode.file': '檔案',
  'ascode.applied': '上次套用',
  'ascode.unmark': '取消標記',
  'ascode.unmark_named': '取消標記 {key}',
  'ascode.unmark_confirm': '取消標記「{key}」？它保持原樣，但不再由 {file} 管理。',
  'ascode.kind.monitor_group': '監控群組',
  'ascode.kind.alert_channel': '通知管道',
  'ascode.kind.webhook_endpoint': 'Webhook 端點',
  'ascode.kind.monitor': '監控',
  'ascode.kind.alert_policy': '告警策略',
  'ascode.kind.alert_silence': '靜默',
  'ascode.kind.maintenance_window': '維護時段',
  'ascode.kind.status_page': '狀態頁',
  'ascode.kind.dashboard': '儀表板',
};
