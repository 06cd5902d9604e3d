import { z } from 'zod';
import { LIMITS } from './limits.js';
import { textString } from './parse.js';
import { usernameSchema } from './account-lifecycle.js';

/**
 * Account and credential wire shapes (docs/api/accounts.md, docs/api/conventions.md). Routes validate requests with
 * these and the OpenAPI document is generated from them. Every request string is a
 * {@link textString}: NUL and lone surrogates are refused (400 VALIDATION_FAILED).
 */

/** Profile locales (docs/api/accounts.md): cn = simplified Chinese, tw = traditional Chinese, en. */
export const ACCOUNT_LOCALES = ['cn', 'en', 'tw'] as const;
/** Profile themes (docs/api/accounts.md). */
export const ACCOUNT_THEMES = ['system', 'light', 'dark'] as const;
/**
 * Scopes of account API keys and PATs (docs/api/scopes.md): `read` grants every `…:read` scope,
 * `write` every `…:write` scope and `probe`; the others grant one family each (`probe` runs
 * probes, `probe:read` reads their results). Omitted or empty grants `read` and `write`.
 */
export const ACCOUNT_KEY_SCOPES = [
  'read', 'write', 'probe', 'probe:read', 'monitor:read', 'monitor:write', 'alert:read', 'alert:write',
  'status:read', 'status:write', 'billing:read', 'billing:write',
] as const;
export type AccountKeyScope = (typeof ACCOUNT_KEY_SCOPES)[number];
/** At most this many allowed origins per key (docs/api/accounts.md "Allowed origins"). */
export const KEY_ALLOWED_ORIGINS_MAX = 20;

/**
 * True for a browser origin as the Origin header sends it (RFC 6454): `http` or `https`, a host,
 * an optional port, nothing else (no path, query, fragment or user info; no trailing slash; no
 * default port; any letter case, compared in lower case).
 * @example isWebOrigin('https://app.example.com:8443') // true
 */
export function isWebOrigin(value: string): boolean {
  let u: URL;
  try { u = new URL(value); } catch { return false; }
  // A path, query, fragment, user info or default port makes the text differ from scheme://host.
  return (u.protocol === 'http:' || u.protocol === 'https:') && `${u.protocol}//${u.host}` === value.toLowerCase();
}

let zones: Set<string> | undefined;
/** True for an IANA time-zone name this runtime knows (`Intl.supportedValuesOf('timeZone')`) or `UTC`. */
export function isIanaTimezone(name: string): boolean {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']);
  return zones.has(name);
}

/** Number of Unicode code points (display names are at most 64 of them, docs/api/accounts.md; an emoji counts once). */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// Control characters other than tab/newline cannot be stored (NUL) or displayed sensibly.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * Optional profile text: NFC-normalised, at most `max` code points, no control characters (tab
 * and newline allowed in multi-line text). Null, empty or blank → null (clears the field).
 */
function profileText(max: number, multiline: boolean) {
  return textString()
    .transform((s) => s.normalize('NFC'))
    .refine((s) => !(multiline ? CONTROL : /[\u0000-\u001f\u007f]/).test(s), { message: 'must not contain control characters' })
    .refine((s) => codePoints(s) <= max, { message: `must be at most ${max} characters` })
    .transform((s) => (s.trim() === '' ? null : s))
    .nullable();
}

/** Email as accepted at registration and login: trimmed, at most 254 characters (RFC 5321). */
const emailSchema = textString().trim().max(254).pipe(z.email());

/**
 * `POST /v1/auth/register` body (docs/api/accounts.md): password at least 8 characters;
 * `invite_token` (`itk_…`) is needed when the deployment registers by invite
 * (VANTAGE_REGISTRATION=invite) and ignored otherwise.
 */
export const registerRequestSchema = z.object({
  email: emailSchema,
  password: textString().min(LIMITS.password_min_chars).max(1024),
  invite_token: textString().max(200).optional(),
});
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

/**
 * `POST /v1/auth/login` body (docs/api/accounts.md): once TOTP is on, `otp` is the 6-digit TOTP
 * code or a recovery code, or `recovery_code` carries a recovery code (each works once).
 */
export const loginRequestSchema = z.object({
  email: textString().trim().min(1).max(254),
  password: textString().min(1).max(1024),
  otp: textString().max(32).optional(),
  recovery_code: textString().max(32).optional(),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

/** `POST /v1/auth/refresh` body (ours; docs/api/conventions.md leaves the exchange open): a `rt_` token. */
export const refreshRequestSchema = z.object({ refresh_token: textString().min(1).max(200) });

/**
 * Auth token response (docs/api/accounts.md): `access_token` (JWT, 900 s), `token_type` Bearer, `expires_in`,
 * plus the rotating `refresh_token` and `user_id`.
 * @example { "access_token": "eyJ…", "token_type": "Bearer", "expires_in": 900, "refresh_token": "rt_…", "user_id": "u_…" }
 */
export const tokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  user_id: z.string(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** User profile (docs/api/accounts.md). `email`/`phone` are empty strings when unbound; phone is masked. */
export const profileSchema = z.object({
  id: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  /** Optional login name (docs/api/accounts.md "Username"); null when none is set. */
  username: z.string().nullable(),
  phone: z.string(),
  phone_verified: z.boolean(),
  has_password: z.boolean(),
  display_name: z.string().nullable(),
  avatar_url: z.string().nullable(),
  bio: z.string().nullable(),
  locale: z.enum(ACCOUNT_LOCALES),
  timezone: z.string(),
  theme: z.enum(ACCOUNT_THEMES),
  status: z.string(),
  two_factor_enabled: z.boolean(),
});
export type Profile = z.infer<typeof profileSchema>;

/**
 * `GET /v1/account/administrator`: whether the caller is an administrator of the deployment
 * (marked so in the database, or a verified address listed in VANTAGE_ADMIN_EMAILS), i.e. whether
 * the `/v1/admin` routes answer it (docs/api/accounts.md "Administration").
 * @example { "is_admin": false }
 */
export const accountAdministratorSchema = z.object({ is_admin: z.boolean() });
export type AccountAdministrator = z.infer<typeof accountAdministratorSchema>;

/**
 * `PATCH /v1/account/profile` body (docs/api/accounts.md, docs/api/conventions.md): every field optional, omitted =
 * unchanged, unknown fields rejected; display_name max 64 and bio max 500 code points, null or
 * blank clears; locale cn/en/tw; timezone an IANA name; theme system/light/dark.
 */
export const profilePatchSchema = z.strictObject({
  display_name: profileText(LIMITS.display_name_max_chars, false).optional(),
  bio: profileText(LIMITS.bio_max_chars, true).optional(),
  locale: z.enum(ACCOUNT_LOCALES).optional(),
  timezone: textString().max(64).refine(isIanaTimezone, { message: 'must be an IANA time zone name' }).optional(),
  theme: z.enum(ACCOUNT_THEMES).optional(),
  /** A username (docs/api/accounts.md "Username"), or null to clear it. */
  username: usernameSchema.nullable().optional(),
});
export type ProfilePatch = z.infer<typeof profilePatchSchema>;

/** 2FA setup answer: the base32 TOTP secret and its otpauth:// URI (RFC 6238, SHA1, 6 digits, 30 s). */
export const totpSetupSchema = z.object({ secret: z.string(), otpauth_uri: z.string() });
/** 2FA confirm/disable body: the current 6-digit code. */
export const totpCodeRequestSchema = z.object({ code: z.string().regex(/^\d{6}$/, 'must be 6 digits') });

const keyCommon = {
  /** Display name of the credential. */
  name: textString().trim().min(1).max(100).refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { message: 'must not contain control characters' }),
  /** Scopes of docs/api/scopes.md; omitted or empty grants `read` and `write` (docs/api/accounts.md). */
  scopes: z.array(z.enum(ACCOUNT_KEY_SCOPES)).max(ACCOUNT_KEY_SCOPES.length).optional(),
  /** Validity in days, 1-90; default 90 unless `expires_at` is given (docs/api/accounts.md, docs/api/conventions.md). */
  expires_days: z.number().int().min(LIMITS.api_key_expires_days_min).max(LIMITS.api_key_expires_days_max).optional(),
  /** Expiry instant instead of `expires_days`: in the future, at most 90 days ahead; null = the default (90 days). */
  expires_at: z.iso.datetime({ offset: true }).nullable().optional()
    .refine((v) => v == null || Date.parse(v) > Date.now(), { message: 'must be in the future' })
    .refine((v) => v == null || Date.parse(v) <= Date.now() + LIMITS.api_key_expires_days_max * 86_400_000, { message: `must be at most ${LIMITS.api_key_expires_days_max} days ahead` }),
  /**
   * Browser origins (`https://app.example.com`, exact scheme://host[:port]) the key is accepted
   * from; a request with another Origin header is refused. Omitted or empty = any origin.
   */
  allowed_origins: z.array(textString().max(255).refine(isWebOrigin, { message: 'must be an origin: http(s)://host[:port], no path' }))
    .max(KEY_ALLOWED_ORIGINS_MAX).optional(),
};
/** `expires_days` and `expires_at` name the same thing: one at most. */
const oneExpiry = { check: (b: { expires_days?: number; expires_at?: string | null }) => b.expires_days === undefined || b.expires_at == null, message: 'send expires_days or expires_at, not both', path: ['expires_at'] };

/**
 * `POST /v1/account/api-keys` body (docs/api/accounts.md); `type` test gives an `sk_test_` key;
 * `team_id` makes a workspace token, which acts only for that team (docs/api/teams.md
 * "Workspace tokens"; the caller must be an admin or owner of it).
 */
export const createApiKeyRequestSchema = z.object({
  ...keyCommon,
  type: z.enum(['production', 'test']).default('production'),
  team_id: z.string().max(64).nullable().optional(),
}).refine(oneExpiry.check, { message: oneExpiry.message, path: oneExpiry.path });
export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequestSchema>;

/** ApiKey (docs/api/accounts.md): never the secret; `key_prefix` is the masked form (`sk_live_abcd…wxyz`). */
export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  key_prefix: z.string(),
  type: z.enum(['production', 'test']),
  scopes: z.array(z.string()),
  /** Origins the key is accepted from; [] = any. */
  allowed_origins: z.array(z.string()),
  /** The team of a workspace token; null for an account key. */
  team_id: z.string().nullable(),
  status: z.enum(['active', 'revoked']),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable(),
  last_used_at: z.iso.datetime().nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

/** Create answer (docs/api/accounts.md): the key record plus `key`, the full secret, returned exactly once. */
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() });
/** `GET /v1/account/api-keys` payload (docs/api/conventions.md): `{api_keys[], total, limit, offset}`. */
export const apiKeyListSchema = z.object({ api_keys: z.array(apiKeySchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

/** `POST /v1/account/tokens` body: a personal access token (`svc_pat_`, docs/api/conventions.md). */
export const createPatRequestSchema = z.object(keyCommon).refine(oneExpiry.check, { message: oneExpiry.message, path: oneExpiry.path });
/** A personal access token record; `token_prefix` masked (`svc_pat_abcd…wxyz`). */
export const patSchema = z.object({
  id: z.string(),
  name: z.string(),
  token_prefix: z.string(),
  scopes: z.array(z.string()),
  /** Origins the token is accepted from; [] = any. */
  allowed_origins: z.array(z.string()),
  status: z.enum(['active', 'revoked']),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable(),
  last_used_at: z.iso.datetime().nullable(),
});
/** PAT create answer: the record plus `token`, the full secret, returned exactly once. */
export const createdPatSchema = patSchema.extend({ token: z.string() });
/** `GET /v1/account/tokens` payload: `{tokens[], total, limit, offset}`. */
export const patListSchema = z.object({ tokens: z.array(patSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

/** Account states an administrator sets (docs/api/accounts.md "Administration"); a disabled account cannot log in or use its keys. */
export const ACCOUNT_STATUSES = ['active', 'disabled'] as const;

/**
 * An account as administrators see it (`/v1/admin/accounts`, docs/api/accounts.md "Administration").
 * `is_admin` is the mark in the database (the first account, or set by an administrator);
 * `admin_email_listed` is true when the verified address is in VANTAGE_ADMIN_EMAILS, which also
 * makes the account an administrator.
 * @example { "id": "u_01jd3k6w9z4q8r2t7v5x1y3b6c", "email": "ops@example.com", "email_verified": true, "is_admin": true, "admin_email_listed": false, "status": "active", "created_at": "2026-11-28T09:00:00.000Z" }
 */
export const adminAccountSchema = z.object({
  id: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  is_admin: z.boolean(),
  admin_email_listed: z.boolean(),
  status: z.string(),
  created_at: z.iso.datetime(),
});
export type AdminAccount = z.infer<typeof adminAccountSchema>;
/** `GET /v1/admin/accounts` payload: `{accounts[], total, limit, offset}`, oldest first. */
export const adminAccountListSchema = z.object({ accounts: z.array(adminAccountSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

/**
 * `POST /v1/admin/accounts` body: `password` omitted = one is generated and returned once;
 * `is_admin` default false.
 * @example { "email": "dev@example.com", "is_admin": false }
 */
export const adminCreateAccountRequestSchema = z.strictObject({
  email: emailSchema,
  password: textString().min(LIMITS.password_min_chars).max(1024).optional(),
  is_admin: z.boolean().default(false),
});
/** `POST /v1/admin/accounts` answer: the account plus `password`, set only when it was generated (shown once). */
export const adminCreatedAccountSchema = adminAccountSchema.extend({ password: z.string().nullable() });

/**
 * `PATCH /v1/admin/accounts/{id}` body: at least one of `is_admin`, `status`; omitted = unchanged.
 * @example { "status": "disabled" }
 */
export const adminAccountPatchSchema = z.strictObject({
  is_admin: z.boolean().optional(),
  status: z.enum(ACCOUNT_STATUSES).optional(),
}).refine((b) => b.is_admin !== undefined || b.status !== undefined, { message: 'give is_admin or status' });

/** Invite validity bounds, seconds: 5 minutes to 30 days, 7 days by default (ours). */
export const INVITE_EXPIRES_IN_S = { min: 300, max: 30 * 86_400, default: 7 * 86_400 } as const;

/**
 * `POST /v1/admin/invites` body: `email` binds the invite to that address (any case); omitted =
 * whoever holds the token. `expires_in_s` 300-2592000, default 604800 (7 days).
 * @example { "email": "dev@example.com", "expires_in_s": 86400 }
 */
export const createInviteRequestSchema = z.strictObject({
  email: emailSchema.optional(),
  expires_in_s: z.number().int().min(INVITE_EXPIRES_IN_S.min).max(INVITE_EXPIRES_IN_S.max).default(INVITE_EXPIRES_IN_S.default),
});
/**
 * An account invite (never its token): `status` `pending` (usable), `used` or `expired`.
 * @example { "id": "inv_01jd3k6w9z4q8r2t7v5x1y3b6c", "email": "dev@example.com", "status": "pending", "created_by": "u_…", "created_at": "…", "expires_at": "…", "used_at": null, "used_by": null }
 */
export const inviteSchema = z.object({
  id: z.string(),
  email: z.string().nullable(),
  status: z.enum(['pending', 'used', 'expired']),
  created_by: z.string(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  used_at: z.iso.datetime().nullable(),
  used_by: z.string().nullable(),
});
/** Invite create answer: the invite plus `token` (`itk_…`), returned exactly once. */
export const createdInviteSchema = inviteSchema.extend({ token: z.string() });
/** `GET /v1/admin/invites` payload: `{invites[], total, limit, offset}`, newest first. */
export const inviteListSchema = z.object({ invites: z.array(inviteSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
