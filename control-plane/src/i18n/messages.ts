import type { ErrorCode } from '@vantage/shared-protocol';

/** Message locales: the profile locales of docs/api/accounts.md (`en`, `cn` = zh-CN, `tw` = zh-TW). */
export type MessageLocale = 'en' | 'cn' | 'tw';

/** Every message locale, in the order docs/api/errors.md lists them. */
export const MESSAGE_LOCALES: readonly MessageLocale[] = ['en', 'cn', 'tw'];

/** One code's display message in each locale: short, a sentence fragment without a final stop. */
export type LocalisedMessages = Record<MessageLocale, string>;

/**
 * Display messages of every error code (docs/api/conventions.md: `message` is localised and for
 * display only; docs/api/errors.md lists the codes). `cn` is simplified Chinese (zh-CN), `tw`
 * traditional Chinese with Taiwan usage (zh-TW). Typed over every ErrorCode, so a code added to
 * shared-protocol without its three messages does not compile (and i18n/messages.test.ts fails).
 */
export const MESSAGES: Record<ErrorCode, LocalisedMessages> = {
  // Auth
  AUTH_REQUIRED: { en: 'Authentication required', cn: '需要身份验证', tw: '需要身分驗證' },
  AUTH_INVALID_TOKEN: { en: 'Invalid credential', cn: '凭证无效', tw: '憑證無效' },
  AUTH_EXPIRED: { en: 'Access token expired', cn: '访问令牌已过期', tw: '存取權杖已過期' },
  AUTH_CREDENTIALS_INVALID: { en: 'Wrong email or password', cn: '邮箱或密码错误', tw: '電子郵件或密碼錯誤' },
  AUTH_EMAIL_NOT_VERIFIED: { en: 'Email address not verified', cn: '邮箱地址尚未验证', tw: '電子郵件地址尚未驗證' },
  AUTH_ACCOUNT_DISABLED: { en: 'Account disabled', cn: '账户已被停用', tw: '帳戶已被停用' },
  AUTH_2FA_REQUIRED: { en: 'Two-factor code required', cn: '需要两步验证码', tw: '需要兩步驟驗證碼' },
  AUTH_2FA_INVALID: { en: 'Wrong two-factor code', cn: '两步验证码错误', tw: '兩步驟驗證碼錯誤' },
  AUTH_2FA_SETUP_REQUIRED: { en: 'Start two-factor setup first', cn: '请先开始两步验证设置', tw: '請先開始兩步驟驗證設定' },
  AUTH_OAUTH_LINKED_OTHER_USER: { en: 'This sign-in is already linked to another account', cn: '该第三方登录已绑定其他账户', tw: '此第三方登入已連結至其他帳戶' },
  AUTH_OAUTH_STATE_INVALID: { en: 'Sign-in request invalid or expired; start again', cn: '登录请求无效或已过期，请重新开始', tw: '登入請求無效或已過期，請重新開始' },
  AUTH_WEBAUTHN_CHALLENGE_INVALID: { en: 'Passkey challenge invalid or expired', cn: '通行密钥验证请求无效或已过期', tw: '通行密鑰驗證請求無效或已過期' },
  AUTH_SESSION_INVALID: { en: 'Session ended; log in again', cn: '会话已失效，请重新登录', tw: '工作階段已失效，請重新登入' },
  AUTH_OTP_INVALID: { en: 'Wrong verification code', cn: '验证码错误', tw: '驗證碼錯誤' },
  AUTH_OTP_EXPIRED: { en: 'Verification code expired', cn: '验证码已过期', tw: '驗證碼已過期' },
  AUTH_OTP_ATTEMPTS_EXCEEDED: { en: 'Too many wrong codes; ask for a new one', cn: '验证码错误次数过多，请重新获取', tw: '驗證碼錯誤次數過多，請重新取得' },
  AUTH_PASSWORD_WEAK: { en: 'Password too weak', cn: '密码强度不足', tw: '密碼強度不足' },
  AUTH_PASSWORD_REUSED: { en: 'Choose a password you have not used before', cn: '不能使用以前用过的密码', tw: '不能使用先前用過的密碼' },
  // Account
  ACCOUNT_NOT_FOUND: { en: 'Account not found', cn: '账户不存在', tw: '帳戶不存在' },
  ACCOUNT_EMAIL_TAKEN: { en: 'Email already registered', cn: '该邮箱已注册', tw: '此電子郵件已註冊' },
  ACCOUNT_USERNAME_TAKEN: { en: 'Username already taken', cn: '用户名已被占用', tw: '使用者名稱已被使用' },
  ACCOUNT_LOCALE_UNSUPPORTED: { en: 'Unsupported locale', cn: '不支持的语言', tw: '不支援的語言' },
  ACCOUNT_TIMEZONE_INVALID: { en: 'Unknown time zone', cn: '无效的时区', tw: '無效的時區' },
  ACCOUNT_DELETED: { en: 'Account deleted', cn: '账户已删除', tw: '帳戶已刪除' },
  ACCOUNT_EMAIL_UNVERIFIED: { en: 'Verify your email address first', cn: '请先验证邮箱地址', tw: '請先驗證電子郵件地址' },
  // Generic
  VALIDATION_FAILED: { en: 'Validation failed', cn: '参数校验失败', tw: '參數驗證失敗' },
  RATE_LIMIT_EXCEEDED: { en: 'Rate limit exceeded', cn: '请求过于频繁', tw: '請求過於頻繁' },
  NOT_FOUND: { en: 'Not found', cn: '资源不存在', tw: '資源不存在' },
  METHOD_NOT_ALLOWED: { en: 'Method not allowed', cn: '不支持该请求方法', tw: '不支援此請求方法' },
  PAYLOAD_TOO_LARGE: { en: 'Request body too large', cn: '请求体过大', tw: '請求內容過大' },
  FORBIDDEN: { en: 'Insufficient permission', cn: '权限不足', tw: '權限不足' },
  CONFLICT: { en: 'Conflicts with the current state', cn: '与当前状态冲突', tw: '與目前狀態衝突' },
  DUPLICATE: { en: 'Already exists', cn: '已存在相同的内容', tw: '已存在相同的內容' },
  REQUEST_TIMEOUT: { en: 'Request timed out', cn: '请求超时', tw: '請求逾時' },
  REQUEST_BODY_INVALID: { en: 'Request body is not valid JSON', cn: '请求体不是有效的 JSON', tw: '請求內容不是有效的 JSON' },
  // Server
  INTERNAL_ERROR: { en: 'Internal server error', cn: '服务器内部错误', tw: '伺服器內部錯誤' },
  UNAVAILABLE: { en: 'Service unavailable', cn: '服务暂不可用', tw: '服務暫時無法使用' },
  UNKNOWN: { en: 'Unknown error', cn: '未知错误', tw: '未知錯誤' },
  // Monitors
  MONITOR_NOT_FOUND: { en: 'Monitor not found', cn: '监控不存在', tw: '監控不存在' },
  MONITOR_NAME_TAKEN: { en: 'Monitor name already in use', cn: '监控名称已被使用', tw: '監控名稱已被使用' },
  MONITOR_LIMIT_EXCEEDED: { en: 'Monitor limit of your plan reached', cn: '已达到套餐的监控数量上限', tw: '已達到方案的監控數量上限' },
  MONITOR_INVALID_TARGET: { en: 'Invalid monitor target', cn: '监控目标无效', tw: '監控目標無效' },
  MONITOR_INVALID_INTERVAL: { en: 'Invalid monitor interval', cn: '监控间隔无效', tw: '監控間隔無效' },
  MONITOR_PAUSED: { en: 'Monitor is paused', cn: '监控已暂停', tw: '監控已暫停' },
  // Alerts
  ALERT_RULE_CONFLICT: { en: 'An alert policy of that name already exists for the monitor', cn: '该监控已有同名告警策略', tw: '該監控已有同名警示政策' },
  ALERT_RULE_NOT_FOUND: { en: 'Alert policy not found', cn: '告警策略不存在', tw: '警示政策不存在' },
  ALERT_CHANNEL_NOT_FOUND: { en: 'Alert channel not found', cn: '告警渠道不存在', tw: '警示管道不存在' },
  ALERT_CHANNEL_INVALID: { en: 'Invalid alert channel settings', cn: '告警渠道配置无效', tw: '警示管道設定無效' },
  ALERT_NOISE_RULE_NOT_FOUND: { en: 'Noise rule not found', cn: '降噪规则不存在', tw: '降噪規則不存在' },
  // Billing
  BILLING_INSUFFICIENT_CREDITS: { en: 'Not enough credits', cn: '额度不足', tw: '額度不足' },
  BILLING_PLAN_NOT_FOUND: { en: 'Plan not found', cn: '套餐不存在', tw: '方案不存在' },
  BILLING_INVOICE_NOT_FOUND: { en: 'Invoice not found', cn: '账单不存在', tw: '帳單不存在' },
  BILLING_PAYMENT_FAILED: { en: 'Payment failed', cn: '支付失败', tw: '付款失敗' },
  BILLING_REFUND_FAILED: { en: 'Refund failed', cn: '退款失败', tw: '退款失敗' },
  BILLING_QUOTA_EXCEEDED: { en: 'Billing quota exceeded', cn: '已超出计费配额', tw: '已超出計費配額' },
  // Quota and plan
  QUOTA_EXCEEDED: { en: 'Quota exceeded', cn: '已超出配额', tw: '已超出配額' },
  FEATURE_LOCKED: { en: 'Not available on your plan', cn: '当前套餐不支持此功能', tw: '目前方案不支援此功能' },
  // Status pages
  STATUS_PAGE_NOT_FOUND: { en: 'Status page not found', cn: '状态页不存在', tw: '狀態頁不存在' },
  STATUS_PAGE_SLUG_TAKEN: { en: 'Status page address already in use', cn: '状态页地址已被使用', tw: '狀態頁網址已被使用' },
  STATUS_PAGE_DOMAIN_INVALID: { en: 'Invalid custom domain', cn: '自定义域名无效', tw: '自訂網域無效' },
  STATUS_PAGE_DOMAIN_TAKEN: { en: 'Custom domain already in use', cn: '自定义域名已被使用', tw: '自訂網域已被使用' },
  // Nodes
  NODE_NOT_FOUND: { en: 'Node not found', cn: '节点不存在', tw: '節點不存在' },
  NODE_ENROLLMENT_TOKEN_INVALID: { en: 'Invalid enrollment token', cn: '节点注册令牌无效', tw: '節點註冊權杖無效' },
  NODE_OFFLINE: { en: 'Node offline', cn: '节点离线', tw: '節點離線' },
  NODE_UPGRADE_FAILED: { en: 'Node upgrade failed', cn: '节点升级失败', tw: '節點升級失敗' },
  NODE_STATE_CONFLICT: { en: 'Not possible in the node\'s current state', cn: '节点当前状态不允许此操作', tw: '節點目前狀態不允許此操作' },
  NODE_ALREADY_BANNED: { en: 'Node already banned', cn: '节点已被封禁', tw: '節點已被封鎖' },
  NODE_NOT_BANNED: { en: 'Node is not banned', cn: '节点未被封禁', tw: '節點未被封鎖' },
  // Teams
  TEAM_NOT_FOUND: { en: 'Team not found', cn: '团队不存在', tw: '團隊不存在' },
  TEAM_MEMBER_EXISTS: { en: 'Already a member of the team', cn: '已是团队成员', tw: '已是團隊成員' },
  TEAM_INVITE_INVALID: { en: 'Invitation invalid or expired', cn: '邀请无效或已过期', tw: '邀請無效或已過期' },
  // API keys and tokens
  API_KEY_NOT_FOUND: { en: 'API key not found', cn: 'API 密钥不存在', tw: 'API 金鑰不存在' },
  API_KEY_REVOKED: { en: 'Credential revoked', cn: '凭证已被吊销', tw: '憑證已被撤銷' },
  PAT_NOT_FOUND: { en: 'Token not found', cn: '令牌不存在', tw: '權杖不存在' },
  TOKEN_EXPIRED: { en: 'Credential expired', cn: '凭证已过期', tw: '憑證已過期' },
  TOKEN_LIMIT_EXCEEDED: { en: 'Token limit reached', cn: '令牌数量已达上限', tw: '權杖數量已達上限' },
  validation_error: { en: 'The MCP token request breaks a token rule', cn: 'MCP 令牌请求不符合令牌规则', tw: 'MCP 權杖請求不符合權杖規則' },
  // Incidents
  POSTMORTEM_NOT_FOUND: { en: 'Postmortem not found', cn: '复盘报告不存在', tw: '事後檢討報告不存在' },
  INCIDENT_NOT_FOUND: { en: 'Incident not found', cn: '故障事件不存在', tw: '故障事件不存在' },
  // Probe
  PROBE_JOB_NOT_FOUND: { en: 'Probe task not found', cn: '探测任务不存在', tw: '探測任務不存在' },
  PROBE_TARGET_INVALID: { en: 'Invalid probe target', cn: '探测目标无效', tw: '探測目標無效' },
  DIAGNOSE_REPORT_TOO_LONG: { en: 'Diagnosis report too long', cn: '诊断报告过长', tw: '診斷報告過長' },
  PROBE_TOO_FEW_NODES: { en: 'No online node matches the selection', cn: '没有符合条件的在线节点', tw: '沒有符合條件的線上節點' },
  // Webhooks
  WEBHOOK_URL_NOT_ALLOWED: { en: 'Webhook URL points to a private or reserved address', cn: 'Webhook 地址指向私有或保留地址', tw: 'Webhook 網址指向私有或保留位址' },
  WEBHOOK_ENDPOINT_LIMIT_EXCEEDED: { en: 'Webhook endpoint limit reached', cn: 'Webhook 端点数量已达上限', tw: 'Webhook 端點數量已達上限' },
  // On-call
  ONCALL_SCHEDULE_NOT_FOUND: { en: 'On-call schedule not found', cn: '值班表不存在', tw: '值班表不存在' },
  ONCALL_PARTICIPANT_NOT_FOUND: { en: 'On-call participant not found', cn: '值班人员不存在', tw: '值班人員不存在' },
  ONCALL_SCHEDULE_NAME_TAKEN: { en: 'On-call schedule name already in use', cn: '值班表名称已被使用', tw: '值班表名稱已被使用' },
  ONCALL_TEAM_MEMBER_REQUIRED: { en: 'On-call participants must be team members', cn: '值班人员必须是团队成员', tw: '值班人員必須是團隊成員' },
};

/**
 * Pick the message locale from an Accept-Language header (RFC 9110 12.5.4 q-values): `zh-TW`,
 * `zh-HK`, `zh-MO` and `zh-Hant*` → tw; other `zh*` → cn; `en*` → en; first supported wins by q.
 * Absent or unsupported → en.
 */
export function pickLocale(header: string | undefined): MessageLocale {
  if (!header) return 'en';
  const ranges = header.split(',').slice(0, 20).map((part, i) => {
    const [tag = '', ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find(Boolean);
    return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), i };
  }).filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranges) {
    if (/^zh-(tw|hk|mo|hant)\b/.test(tag)) return 'tw';
    if (tag === 'zh' || tag.startsWith('zh-')) return 'cn';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'en';
}

/**
 * The route's own English message when it says more than the code's generic one (it names the
 * field, the limit or the reason), else null.
 */
export function specificDetail(code: ErrorCode, message: string): string | null {
  return message && message !== code && message !== MESSAGES[code]?.en ? message : null;
}

/**
 * The display message of an error (docs/api/errors.md "Messages"): in English the route's own
 * message when it has one (it names the field, the limit or the reason), else the code's
 * generic message; in Chinese (`cn`, `tw`) the code's localised message. The English detail is
 * not lost in Chinese: the error handler puts it in `details.message_en`. A code without an entry
 * (only possible before messages.test.ts fails) falls back to the English text.
 */
export function localiseMessage(code: ErrorCode, message: string, locale: MessageLocale): string {
  const m = MESSAGES[code] as LocalisedMessages | undefined;
  const detail = specificDetail(code, message);
  if (locale === 'en') return detail ?? m?.en ?? code;
  return m?.[locale] ?? detail ?? code;
}
