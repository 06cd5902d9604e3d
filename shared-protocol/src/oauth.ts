import { z } from 'zod';
import { secretSchema } from './ids.js';
import { textString } from './parse.js';

/**
 * Single sign-on wire shapes: login with an OpenID Connect provider or GitHub, and the identities
 * linked to an account (docs/api/accounts.md "Single sign-on (OIDC, GitHub)"). Every request
 * string is a {@link textString}: NUL and lone surrogates are refused (400 VALIDATION_FAILED).
 */

/** Kinds of sign-in provider: any OpenID Connect 1.0 issuer, or GitHub's OAuth apps. */
export const OAUTH_PROVIDER_KINDS = ['oidc', 'github'] as const;
export type OAuthProviderKind = (typeof OAUTH_PROVIDER_KINDS)[number];

/** A provider id as the operator names it: 1–32 lower-case letters, digits and dashes, starting with a letter or digit. */
export const OAUTH_PROVIDER_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** One configured provider as the public list shows it (no client id or secret). */
export const oauthProviderSchema = z.object({
  id: z.string().regex(OAUTH_PROVIDER_ID_PATTERN),
  name: z.string(),
  kind: z.enum(OAUTH_PROVIDER_KINDS),
});
export type OAuthProvider = z.infer<typeof oauthProviderSchema>;

/** `GET /v1/auth/oauth/providers`: every provider configured on the deployment, in configuration order. */
export const oauthProviderListSchema = z.object({ providers: z.array(oauthProviderSchema) });

/**
 * Answer of a flow start (login or link): where to send the browser, the `state` the callback must
 * carry back (RFC 6749 10.12), and for how many seconds the flow can be completed.
 */
export const oauthStartResponseSchema = z.object({
  authorization_url: z.string(),
  state: z.string(),
  expires_in_s: z.number().int(),
});
export type OAuthStartResponse = z.infer<typeof oauthStartResponseSchema>;

const code = textString().min(1).max(2048);
const state = textString().min(1).max(256);

/**
 * Body of a callback: the `code` and `state` of the authorization response (RFC 6749 4.1.2), plus
 * `iss` when the provider sends one (RFC 9207), and for a login to an account with two-factor
 * authentication its current TOTP code in `otp` (RFC 6238).
 */
export const oauthCallbackRequestSchema = z.strictObject({
  code,
  state,
  iss: textString().max(2048).optional(),
  otp: textString().max(16).optional(),
});
export type OAuthCallbackRequest = z.infer<typeof oauthCallbackRequestSchema>;

/**
 * `POST /v1/auth/oauth/2fa`: the second step of a single sign-on to an account with TOTP on: the
 * `details.mfa_token` of the callback's 401 AUTH_2FA_REQUIRED, and the current TOTP code (RFC 6238)
 * in `otp` or a recovery code in `recovery_code` (either may also go in `otp`, as for
 * `POST /v1/auth/login`).
 * @example { "mfa_token": "mfa_0123456789abcdefghjkmnpqrstvwxyz", "otp": "123456" }
 */
export const oauthTwoFactorRequestSchema = z.strictObject({
  mfa_token: secretSchema('oauth_mfa_token'),
  otp: textString().max(32).optional(),
  recovery_code: textString().max(32).optional(),
}).refine((b) => (b.otp ?? '') !== '' || (b.recovery_code ?? '') !== '', { message: 'give otp or recovery_code', path: ['otp'] });
export type OAuthTwoFactorRequest = z.infer<typeof oauthTwoFactorRequestSchema>;

/** Body of a link flow's callback (`POST /v1/account/identities/{provider}/callback`): as a login's, without `otp`. */
export const oauthLinkCallbackRequestSchema = oauthCallbackRequestSchema.omit({ otp: true });

/**
 * Query of the redirect callback: as the provider appends it to the redirect URI, either
 * `code`/`state`/`iss` or an error response `error`/`error_description`/`state` (RFC 6749 4.1.2.1).
 */
export const oauthCallbackQuerySchema = z.object({
  code: code.optional(),
  state,
  iss: textString().max(2048).optional(),
  error: textString().max(256).optional(),
  error_description: textString().max(2048).optional(),
});

/** A provider identity linked to the account (`idn_` id). `email` is the one the provider gave at link time. */
export const oauthIdentitySchema = z.object({
  id: z.string(),
  provider: z.string(),
  /** The provider's display name; `null` when the operator removed the provider from the configuration. */
  provider_name: z.string().nullable(),
  kind: z.enum(OAUTH_PROVIDER_KINDS).nullable(),
  subject: z.string(),
  email: z.string(),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
});
export type OAuthIdentity = z.infer<typeof oauthIdentitySchema>;

/** `GET /v1/account/identities`: the account's linked identities, oldest first. */
export const oauthIdentityListSchema = z.object({ identities: z.array(oauthIdentitySchema) });

/** `POST /v1/account/identities/link`: the owner confirms the link a login offered (`details.link_token` of its 409). */
export const oauthLinkConfirmRequestSchema = z.strictObject({ link_token: textString().min(1).max(256) });
