import { z } from 'zod';

/**
 * Every error code clients branch on, with the HTTP status we answer it with (docs/api/conventions.md):
 * auth failures 401, permission 403, missing 404, conflicts 409, business validation 422, limits
 * 429, server 5xx.
 */
export const ERROR_STATUS = {
  // Auth
  AUTH_REQUIRED: 401,
  AUTH_INVALID_TOKEN: 401,
  AUTH_EXPIRED: 401,
  AUTH_CREDENTIALS_INVALID: 401,
  AUTH_EMAIL_NOT_VERIFIED: 403,
  AUTH_ACCOUNT_DISABLED: 403,
  AUTH_2FA_REQUIRED: 401,
  AUTH_2FA_INVALID: 401,
  AUTH_2FA_SETUP_REQUIRED: 409,
  AUTH_OAUTH_LINKED_OTHER_USER: 409,
  AUTH_OAUTH_STATE_INVALID: 400,
  AUTH_WEBAUTHN_CHALLENGE_INVALID: 400,
  AUTH_SESSION_INVALID: 401,
  AUTH_OTP_INVALID: 401,
  AUTH_OTP_EXPIRED: 401,
  AUTH_OTP_ATTEMPTS_EXCEEDED: 429,
  AUTH_PASSWORD_WEAK: 400,
  AUTH_PASSWORD_REUSED: 400,
  // Account
  ACCOUNT_NOT_FOUND: 404,
  ACCOUNT_EMAIL_TAKEN: 409,
  ACCOUNT_USERNAME_TAKEN: 409,
  ACCOUNT_LOCALE_UNSUPPORTED: 400,
  ACCOUNT_TIMEZONE_INVALID: 400,
  ACCOUNT_DELETED: 410,
  ACCOUNT_EMAIL_UNVERIFIED: 403,
  // Generic
  VALIDATION_FAILED: 400,
  RATE_LIMIT_EXCEEDED: 429,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  FORBIDDEN: 403,
  CONFLICT: 409,
  DUPLICATE: 409,
  REQUEST_TIMEOUT: 408,
  REQUEST_BODY_INVALID: 400,
  // Server
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
  UNKNOWN: 500,
  // Monitors
  MONITOR_NOT_FOUND: 404,
  MONITOR_NAME_TAKEN: 409,
  MONITOR_LIMIT_EXCEEDED: 422,
  MONITOR_INVALID_TARGET: 422,
  MONITOR_INVALID_INTERVAL: 400,
  MONITOR_PAUSED: 409,
  // Alerts
  ALERT_RULE_CONFLICT: 409,
  ALERT_RULE_NOT_FOUND: 404,
  ALERT_CHANNEL_NOT_FOUND: 404,
  ALERT_CHANNEL_INVALID: 400,
  ALERT_NOISE_RULE_NOT_FOUND: 404,
  // Billing
  BILLING_INSUFFICIENT_CREDITS: 402,
  BILLING_PLAN_NOT_FOUND: 404,
  BILLING_INVOICE_NOT_FOUND: 404,
  BILLING_PAYMENT_FAILED: 402,
  BILLING_REFUND_FAILED: 502,
  BILLING_QUOTA_EXCEEDED: 429,
  // Quota and plan
  QUOTA_EXCEEDED: 429,
  FEATURE_LOCKED: 403,
  // Status pages
  STATUS_PAGE_NOT_FOUND: 404,
  STATUS_PAGE_SLUG_TAKEN: 409,
  STATUS_PAGE_DOMAIN_INVALID: 400,
  STATUS_PAGE_DOMAIN_TAKEN: 409,
  // Nodes
  NODE_NOT_FOUND: 404,
  NODE_ENROLLMENT_TOKEN_INVALID: 401,
  NODE_OFFLINE: 503,
  NODE_UPGRADE_FAILED: 500,
  NODE_STATE_CONFLICT: 409,
  NODE_ALREADY_BANNED: 409,
  NODE_NOT_BANNED: 409,
  // Teams
  TEAM_NOT_FOUND: 404,
  TEAM_MEMBER_EXISTS: 409,
  TEAM_INVITE_INVALID: 400,
  // API keys and tokens
  API_KEY_NOT_FOUND: 404,
  API_KEY_REVOKED: 401,
  PAT_NOT_FOUND: 404,
  TOKEN_EXPIRED: 401,
  TOKEN_LIMIT_EXCEEDED: 422,
  // Incidents
  POSTMORTEM_NOT_FOUND: 404,
  INCIDENT_NOT_FOUND: 404,
  // Probe
  PROBE_JOB_NOT_FOUND: 404,
  PROBE_TARGET_INVALID: 422,
  DIAGNOSE_REPORT_TOO_LONG: 422,
  /** Ours: no online node matches a probe's selection. */
  PROBE_TOO_FEW_NODES: 422,
  // Webhooks (ours; docs/api/webhooks.md)
  /** A webhook URL whose host is (or resolves to) a private or reserved address (docs/api/webhooks.md). */
  WEBHOOK_URL_NOT_ALLOWED: 422,
  /** An account already has the most webhook endpoints it may have. */
  WEBHOOK_ENDPOINT_LIMIT_EXCEEDED: 422,
  // On-call
  ONCALL_SCHEDULE_NOT_FOUND: 404,
  ONCALL_PARTICIPANT_NOT_FOUND: 404,
  ONCALL_SCHEDULE_NAME_TAKEN: 409,
  ONCALL_TEAM_MEMBER_REQUIRED: 422,
  // MCP tokens (docs/api/mcp.md)
  /**
   * The one lower-case code, as the API reference names it: an MCP token request that breaks a
   * business rule (a service token without `ip_whitelist`, `expires_at` past the type's maximum).
   */
  validation_error: 422,
} as const;

/**
 * Codes we added to the common list for transport-level and business answers: METHOD_NOT_ALLOWED
 * (405), PAYLOAD_TOO_LARGE (413), PROBE_TOO_FEW_NODES (422, no online node matches a selection),
 * WEBHOOK_URL_NOT_ALLOWED and WEBHOOK_ENDPOINT_LIMIT_EXCEEDED (422, business validation of webhook
 * endpoints), `validation_error` (422, MCP token rules; lower case as the reference writes it).
 */
export const EXTRA_ERROR_CODES = ['METHOD_NOT_ALLOWED', 'PAYLOAD_TOO_LARGE', 'PROBE_TOO_FEW_NODES', 'WEBHOOK_URL_NOT_ALLOWED', 'WEBHOOK_ENDPOINT_LIMIT_EXCEEDED', 'validation_error'] as const;

/** One of the stable UPPER_SNAKE_CASE codes clients branch on (docs/api/conventions.md). */
export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
export const errorCodeSchema = z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]);

/** HTTP status for `code` (docs/api/conventions.md). */
export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/**
 * The error envelope of docs/api/conventions.md:
 * `{ error: { code, message, request_id, details?, doc_url? }, request_id }`.
 * @example { "error": { "code": "NOT_FOUND", "message": "Not found", "request_id": "req_…" }, "request_id": "req_…" }
 */
export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string().regex(/^[A-Z][A-Z0-9_]*$|^validation_error$/),
    message: z.string(),
    request_id: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    doc_url: z.url().optional(),
  }),
  request_id: z.string(),
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
