import { z } from 'zod';

/**
 * Account lifecycle settings (docs/api/accounts.md "Account lifecycle"): deletion grace period,
 * the purge job, and the SMS gateway that sends phone verification codes. Read once in main.ts
 * from VANTAGE_<FIELD> (arrays comma-separated).
 */
export const lifecycleConfigSchema = z.object({
  /**
   * How long a deleted account can still be restored before it is purged with everything it owns,
   * s (default 30 days). `DELETE /v1/account` sets `deletion_scheduled_at` to now plus this.
   */
  account_deletion_grace_s: z.coerce.number().int().min(60).max(365 * 86_400).default(30 * 86_400),
  /** How often the purge job looks for accounts whose grace period has passed, s (default 1 hour; also once at start). */
  account_purge_interval_s: z.coerce.number().int().min(1).max(86_400).default(3600),
  /**
   * How recent the session must be (seconds since its login) to delete an account that has no
   * password: such an account confirms the deletion by having logged in this recently (default 10 minutes).
   */
  account_deletion_recent_login_s: z.coerce.number().int().min(30).max(86_400).default(600),
  /** Lifetime of a phone verification code sent by SMS, s (default 10 minutes). */
  phone_code_ttl_s: z.coerce.number().int().min(60).max(86_400).default(600),
  /** Wrong codes accepted for one phone verification before it must be asked for again. */
  phone_code_max_attempts: z.coerce.number().int().min(1).max(20).default(5),
  /** Least time between two verification SMS to one account, s (default 60). */
  phone_code_resend_s: z.coerce.number().int().min(0).max(3600).default(60),
  /** Most verification SMS one account may ask for per hour (whatever the numbers), against SMS pumping; more: 429 RATE_LIMIT_EXCEEDED. */
  phone_code_sends_per_hour: z.coerce.number().int().min(1).max(100).default(5),
  /**
   * The HTTP SMS gateway that sends phone verification codes (VANTAGE_SMS_GATEWAY_URL), the same
   * kind of gateway as an `sms` alert channel (docs/api/alerting.md): one request per message.
   * Unset: phone binding answers 503 UNAVAILABLE. Its host must be allowed by the outbound address
   * policy (a private or loopback gateway needs VANTAGE_DELIVERY_ALLOW_CIDRS).
   */
  sms_gateway_url: z.url({ protocol: /^https?$/ }).optional(),
  /** HTTP method of the SMS gateway request: POST, PUT or GET (GET: the rendered body is the query string). */
  sms_gateway_method: z.enum(['POST', 'PUT', 'GET']).default('POST'),
  /** Content type of the SMS gateway body, which also picks how template values are escaped. */
  sms_gateway_content_type: z.enum(['application/json', 'application/x-www-form-urlencoded', 'text/plain']).default('application/json'),
  /**
   * Body template of the SMS gateway request, Go template syntax with `{{.Phone}}`, `{{.Message}}`
   * and `{{.Title}}` (docs/api/alerting.md "Templates"). Unset: `{"to":"{{.Phone}}","message":"{{.Message}}"}`.
   */
  sms_gateway_body_template: z.string().min(1).max(4096).optional(),
  /**
   * Extra headers of the SMS gateway request (an API key, say), each `Name: value`, comma-separated
   * (VANTAGE_SMS_GATEWAY_HEADERS=`Authorization: Bearer abc`).
   */
  sms_gateway_headers: z.array(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+:\s*\S.*$/, 'must be "Name: value"')).max(20).default([]),
});
