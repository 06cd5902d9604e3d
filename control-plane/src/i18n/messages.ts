import type { ErrorCode } from '@vantage/shared-protocol';

/** Message locales: the profile locales of docs/api/accounts.md (`en`, `cn` = zh-CN, `tw` = zh-TW). */
export type MessageLocale = 'en' | 'cn' | 'tw';

/** Display messages per code (docs/api/conventions.md: `message` is localised and for display only). */
const MESSAGES: Partial<Record<ErrorCode, { en: string; cn: string; tw: string }>> = {
  AUTH_REQUIRED: { en: 'Authentication required', cn: '需要身份验证', tw: '需要身分驗證' },
  AUTH_INVALID_TOKEN: { en: 'Invalid credential', cn: '凭证无效', tw: '憑證無效' },
  AUTH_EXPIRED: { en: 'Access token expired', cn: '访问令牌已过期', tw: '存取權杖已過期' },
  AUTH_CREDENTIALS_INVALID: { en: 'Wrong email or password', cn: '邮箱或密码错误', tw: '電子郵件或密碼錯誤' },
  AUTH_2FA_REQUIRED: { en: 'Two-factor code required', cn: '需要两步验证码', tw: '需要兩步驟驗證碼' },
  AUTH_2FA_INVALID: { en: 'Wrong two-factor code', cn: '两步验证码错误', tw: '兩步驟驗證碼錯誤' },
  AUTH_2FA_SETUP_REQUIRED: { en: 'Start two-factor setup first', cn: '请先开始两步验证设置', tw: '請先開始兩步驟驗證設定' },
  AUTH_SESSION_INVALID: { en: 'Session ended; log in again', cn: '会话已失效，请重新登录', tw: '工作階段已失效，請重新登入' },
  AUTH_PASSWORD_WEAK: { en: 'Password too weak', cn: '密码强度不足', tw: '密碼強度不足' },
  ACCOUNT_EMAIL_TAKEN: { en: 'Email already registered', cn: '该邮箱已注册', tw: '此電子郵件已註冊' },
  ACCOUNT_NOT_FOUND: { en: 'Account not found', cn: '账户不存在', tw: '帳戶不存在' },
  ACCOUNT_TIMEZONE_INVALID: { en: 'Unknown time zone', cn: '无效的时区', tw: '無效的時區' },
  ACCOUNT_LOCALE_UNSUPPORTED: { en: 'Unsupported locale', cn: '不支持的语言', tw: '不支援的語言' },
  VALIDATION_FAILED: { en: 'Validation failed', cn: '参数校验失败', tw: '參數驗證失敗' },
  REQUEST_BODY_INVALID: { en: 'Request body is not valid JSON', cn: '请求体不是有效的 JSON', tw: '請求內容不是有效的 JSON' },
  RATE_LIMIT_EXCEEDED: { en: 'Rate limit exceeded', cn: '请求过于频繁', tw: '請求過於頻繁' },
  NOT_FOUND: { en: 'Not found', cn: '资源不存在', tw: '資源不存在' },
  METHOD_NOT_ALLOWED: { en: 'Method not allowed', cn: '不支持该请求方法', tw: '不支援此請求方法' },
  PAYLOAD_TOO_LARGE: { en: 'Request body exceeds 32 KB', cn: '请求体超过 32 KB', tw: '請求內容超過 32 KB' },
  FORBIDDEN: { en: 'Insufficient permission', cn: '权限不足', tw: '權限不足' },
  INTERNAL_ERROR: { en: 'Internal server error', cn: '服务器内部错误', tw: '伺服器內部錯誤' },
  UNAVAILABLE: { en: 'Service unavailable', cn: '服务暂不可用', tw: '服務暫時無法使用' },
  API_KEY_NOT_FOUND: { en: 'API key not found', cn: 'API 密钥不存在', tw: 'API 金鑰不存在' },
  API_KEY_REVOKED: { en: 'Credential revoked', cn: '凭证已被吊销', tw: '憑證已被撤銷' },
  PAT_NOT_FOUND: { en: 'Token not found', cn: '令牌不存在', tw: '權杖不存在' },
  TOKEN_EXPIRED: { en: 'Credential expired', cn: '凭证已过期', tw: '憑證已過期' },
  CONFLICT: { en: 'Conflicts with the current state', cn: '与当前状态冲突', tw: '與目前狀態衝突' },
  MONITOR_NOT_FOUND: { en: 'Monitor not found', cn: '监控不存在', tw: '監控不存在' },
  MONITOR_NAME_TAKEN: { en: 'Monitor name already in use', cn: '监控名称已被使用', tw: '監控名稱已被使用' },
  MONITOR_LIMIT_EXCEEDED: { en: 'Monitor limit of your plan reached', cn: '已达到套餐的监控数量上限', tw: '已達到方案的監控數量上限' },
  MONITOR_INVALID_TARGET: { en: 'Invalid monitor target', cn: '监控目标无效', tw: '監控目標無效' },
  MONITOR_INVALID_INTERVAL: { en: 'Invalid monitor interval', cn: '监控间隔无效', tw: '監控間隔無效' },
  MONITOR_PAUSED: { en: 'Monitor is paused', cn: '监控已暂停', tw: '監控已暫停' },
  ALERT_CHANNEL_NOT_FOUND: { en: 'Alert channel not found', cn: '告警渠道不存在', tw: '告警通道不存在' },
  ALERT_CHANNEL_INVALID: { en: 'Invalid alert channel settings', cn: '告警渠道配置无效', tw: '告警通道設定無效' },
  ALERT_RULE_NOT_FOUND: { en: 'Alert policy not found', cn: '告警策略不存在', tw: '告警策略不存在' },
  ALERT_RULE_CONFLICT: { en: 'An alert policy of that name already exists for the monitor', cn: '该监控已有同名告警策略', tw: '該監控已有同名告警策略' },
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
 * The display message of an error: in English the route's own message (it names the field or
 * the reason); in Chinese the localised message of the code (field detail stays in `details`).
 */
export function localiseMessage(code: ErrorCode, message: string, locale: MessageLocale): string {
  const m = MESSAGES[code];
  if (locale === 'en') return message && message !== code ? message : (m?.en ?? code);
  return m?.[locale] ?? (message !== code ? message : code);
}
