import { randomBytes } from 'node:crypto';
import { newId, newSecret, type OAuthIdentity, type OAuthStartResponse, type TokenResponse } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { findUserByEmail, findUserById } from './accounts.db.js';
import { markEmailVerified } from './email-verification.db.js';
import { sendVerificationEmail } from './email-verification.js';
import { findIdentity, findState, insertIdentity, insertLinkOffer, insertMfaToken, insertState, takeLinkOffer, takeMfaToken, takeState, touchIdentity, tryMfaToken, type IdentityRow } from './oauth.db.js';
import { finishFlow, providerById, startFlow, type ProviderProfile } from './oauth-providers.js';
import { precheckRegistration, registerAccount } from './registration.js';
import { hashSecret } from './secrets.js';
import { openSession } from './session-tokens.js';
import { refuseInactiveAccount } from './account-status.js';
import { checkLoginSecondFactor } from './recovery-codes.js';

type Deps = Pick<AppDeps, 'config' | 'sql' | 'log' | 'mail'>;

/** The API view of a linked identity (docs/api/accounts.md "Single sign-on (OIDC, GitHub)"). */
export function toIdentity(deps: Pick<AppDeps, 'config'>, row: IdentityRow): OAuthIdentity {
  const p = deps.config.oidc_providers.find((x) => x.id === row.provider);
  return {
    id: row.id, provider: row.provider, provider_name: p?.name ?? null, kind: p?.kind ?? null, subject: row.subject, email: row.email,
    created_at: row.created_at.toISOString(), last_login_at: row.last_login_at?.toISOString() ?? null,
  };
}

/** A 256-bit random token as base64url (43 characters): `state` values and link tokens. */
function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Start a login (`user_id` null) or link flow with provider `provider_id`: a fresh `state`
 * (stored hashed, single use, valid `oidc_state_ttl_s`), a PKCE verifier and an OIDC nonce.
 * @throws ApiError 404 NOT_FOUND for an unknown provider, 503 UNAVAILABLE when its discovery fails
 */
export async function startOAuth(deps: Deps, provider_id: string, user_id: string | null): Promise<OAuthStartResponse> {
  const p = providerById(deps, provider_id);
  const state = randomToken();
  const flow = await startFlow(deps, p, state);
  const ttl_s = deps.config.oidc_state_ttl_s;
  await insertState(deps.sql, { state_hash: hashSecret(state), provider: p.id, purpose: user_id ? 'link' : 'login', user_id, code_verifier: flow.code_verifier, nonce: flow.nonce, ttl_s });
  return { authorization_url: flow.authorization_url, state, expires_in_s: ttl_s };
}

const stateInvalid = (reason: string, message: string) => new ApiError('AUTH_OAUTH_STATE_INVALID', message, { reason });

/**
 * Take the flow `state` names, once, when it is of this purpose (and this user's for a link: a
 * flow of another purpose or account stays for its own callback), and check it is this
 * provider's and unexpired; then, unless the provider answered an error, finish it.
 * @throws ApiError 400 AUTH_OAUTH_STATE_INVALID (`details.reason`: unknown_or_used, expired,
 *   other_provider, other_purpose, provider_refused, provider_answer_invalid), 503 UNAVAILABLE
 */
async function completeFlow(deps: Deps, provider_id: string, cb: { code?: string | undefined; state: string; iss?: string | undefined; error?: string | undefined }, expect: { purpose: 'login' | 'link'; user_id: string | null }): Promise<ProviderProfile> {
  const p = providerById(deps, provider_id);
  const state_hash = hashSecret(cb.state);
  const row = await takeState(deps.sql, state_hash, expect);
  if (!row) {
    if (!(await findState(deps.sql, state_hash))) throw stateInvalid('unknown_or_used', 'unknown or already used state; start again');
    throw stateInvalid('other_purpose', expect.purpose === 'login'
      ? 'this state belongs to a link flow: complete it with POST /v1/account/identities/{provider}/callback'
      : 'this state belongs to another flow (a login, or another account\'s link); start again');
  }
  if (row.provider !== p.id) throw stateInvalid('other_provider', 'this state was issued for another provider; start again');
  if (row.expired) throw stateInvalid('expired', 'this sign-in took too long; start again');
  if (cb.error !== undefined) throw new ApiError('AUTH_OAUTH_STATE_INVALID', `the provider refused the sign-in (${cb.error}); start again`, { reason: 'provider_refused', provider_error: cb.error });
  if (cb.code === undefined) throw stateInvalid('code_missing', 'the callback carries no code; start again');
  return finishFlow(deps, p, { code: cb.code, state: cb.state, iss: cb.iss, code_verifier: row.code_verifier, nonce: row.nonce });
}

/** The console's page that finishes a link flow (docs/console.md "Security"): a path of the console's own origin, never taken from the request. */
export const LINK_FINISH_PATH = '/security/link';

/**
 * Where the redirect URI (`GET /v1/auth/oauth/{provider}/callback`) sends a browser that comes
 * back with the `state` of a link flow with this provider (docs/api/accounts.md "Single sign-on
 * (OIDC, GitHub)"): {@link LINK_FINISH_PATH} with `?provider=` and, in the fragment (which
 * browsers never send to a server, so it reaches no log), the provider's `code`, `state` and
 * `iss` or its `error`. The state is left unused: the signed-in console completes it with
 * `POST /v1/account/identities/{provider}/callback`, bound to the account that started it.
 * @returns that relative URL, or null when `state` is no link flow of this provider (then it is a login's callback)
 * @throws ApiError 404 NOT_FOUND for an unknown provider
 */
export async function linkFlowLanding(deps: Pick<Deps, 'config' | 'sql'>, provider_id: string, cb: { code?: string | undefined; state: string; iss?: string | undefined; error?: string | undefined }): Promise<string | null> {
  const p = providerById(deps, provider_id);
  const flow = await findState(deps.sql, hashSecret(cb.state));
  if (flow?.purpose !== 'link' || flow.provider !== p.id) return null;
  const carried = new URLSearchParams({ state: cb.state });
  for (const key of ['code', 'iss', 'error'] as const) if (cb[key] !== undefined) carried.set(key, cb[key]);
  return `${LINK_FINISH_PATH}?${new URLSearchParams({ provider: p.id })}#${carried}`;
}

/** What a login callback ends in: a session for an existing or a new account. */
export interface OAuthLoginResult {
  tokens: TokenResponse;
  created: boolean;
  is_admin: boolean;
  verification_email?: 'queued' | 'logged' | 'failed';
}

/**
 * Complete a login flow (docs/api/accounts.md "Single sign-on (OIDC, GitHub)"):
 * - an identity linked to an account → a session for it; with TOTP on, its code or a recovery
 *   code in `otp` (as `POST /v1/auth/login`; accounts/recovery-codes.ts), or without one 401
 *   AUTH_2FA_REQUIRED with `details {mfa_token, expires_in_s}` for {@link completeOAuthTwoFactor};
 * - else a verified provider e-mail of an existing account → 409 CONFLICT with `details.link_token`:
 *   nothing is linked until the account's owner, signed in, confirms (POST /v1/account/identities/link);
 * - else an unverified e-mail of an existing account → 409 ACCOUNT_EMAIL_TAKEN (never linked);
 * - else a new account without a password, as VANTAGE_REGISTRATION allows (accounts/registration.ts),
 *   its e-mail verified when the provider vouches for it, linked to the identity.
 * @throws ApiError as completeFlow; 403 AUTH_ACCOUNT_DISABLED / 410 ACCOUNT_DELETED, 401 AUTH_2FA_REQUIRED / AUTH_2FA_INVALID,
 *   409 CONFLICT (`details {reason: "link_required", link_token, provider, email, expires_in_s}`),
 *   409 ACCOUNT_EMAIL_TAKEN, 403 FORBIDDEN (registration refused), 400 VALIDATION_FAILED (no e-mail)
 */
export async function loginWithOAuth(deps: Deps, provider_id: string, cb: { code?: string | undefined; state: string; iss?: string | undefined; error?: string | undefined; otp?: string | undefined }): Promise<OAuthLoginResult> {
  const profile = await completeFlow(deps, provider_id, cb, { purpose: 'login', user_id: null });
  const identity = await findIdentity(deps.sql, provider_id, profile.subject);
  if (identity) {
    const user = await findUserById(deps.sql, identity.user_id);
    if (!user) throw new ApiError('AUTH_ACCOUNT_DISABLED', 'account disabled');
    refuseInactiveAccount(user);
    // With TOTP on and no code in `otp`: a second step (POST /v1/auth/oauth/2fa) with the token
    // handed out here, as the flow's state is used up. A code given here is checked as at login.
    if (user.totp_secret && (cb.otp ?? '') === '') throw await twoFactorRequired(deps, user.id, identity.id);
    await checkLoginSecondFactor(deps, user, { otp: cb.otp });
    await touchIdentity(deps.sql, identity.id);
    return { tokens: await openSession(deps, user.id), created: false, is_admin: false };
  }
  const existing = profile.email ? await findUserByEmail(deps.sql, profile.email) : null;
  if (existing && profile.email_verified) {
    const link_token = randomToken();
    const ttl_s = deps.config.oidc_state_ttl_s;
    await insertLinkOffer(deps.sql, { token_hash: hashSecret(link_token), user_id: existing.id, provider: provider_id, subject: profile.subject, email: profile.email, ttl_s });
    throw new ApiError('CONFLICT', 'an account already has this e-mail: sign in to it and confirm the link with POST /v1/account/identities/link', {
      reason: 'link_required', link_token, provider: provider_id, email: profile.email, expires_in_s: ttl_s,
    });
  }
  // Refused registrations are refused before an existing address is revealed (as POST /v1/auth/register).
  await precheckRegistration(deps, undefined);
  if (existing) throw new ApiError('ACCOUNT_EMAIL_TAKEN', 'an account already has this e-mail and the provider does not vouch for it: sign in to that account and link the provider from it');
  if (!profile.email) throw new ApiError('VALIDATION_FAILED', 'the provider gave no e-mail address, and an account needs one', { reason: 'provider_email_missing' });
  const user = await registerAccount(deps, { id: newId('user'), email: profile.email, password_hash: '' });
  const linked = await insertIdentity(deps.sql, { id: newId('oauth_identity'), user_id: user.id, provider: provider_id, subject: profile.subject, email: profile.email, logged_in: true });
  if (!linked.created) deps.log.warn({ user_id: user.id, provider: provider_id }, 'identity linked concurrently to another account');
  let verification_email: OAuthLoginResult['verification_email'];
  if (profile.email_verified) await markEmailVerified(deps.sql, user.id, profile.email);
  else {
    const sent = await sendVerificationEmail(deps, user.id).catch((err: unknown) => {
      deps.log.error({ err, user_id: user.id }, 'verification e-mail could not be queued');
      return null;
    });
    verification_email = sent && 'sent' in sent ? sent.sent : 'failed';
  }
  deps.log.info({ user_id: user.id, provider: provider_id, is_admin: user.is_admin }, 'account created by single sign-on');
  return { tokens: await openSession(deps, user.id), created: true, is_admin: user.is_admin, ...(verification_email ? { verification_email } : {}) };
}

/** How long the second-step token of a single sign-on serves, seconds (ours: as long as a TOTP code takes to type, with room). */
export const OAUTH_MFA_TTL_S = 300;
/** Codes that may be tried against one second-step token before it is spent (ours; a new sign-in gives a new one). */
export const OAUTH_MFA_MAX_ATTEMPTS = 5;

/** 401 AUTH_2FA_REQUIRED carrying a fresh second-step token for `user_id` (`details {mfa_token, expires_in_s}`). */
async function twoFactorRequired(deps: Deps, user_id: string, identity_id: string): Promise<ApiError> {
  const mfa_token = newSecret('oauth_mfa_token');
  await insertMfaToken(deps.sql, { token_hash: hashSecret(mfa_token), user_id, identity_id, ttl_s: OAUTH_MFA_TTL_S });
  return new ApiError('AUTH_2FA_REQUIRED', 'two-factor code required: send it with details.mfa_token to POST /v1/auth/oauth/2fa', { mfa_token, expires_in_s: OAUTH_MFA_TTL_S });
}

/**
 * The second step of a single sign-on to an account with TOTP on (docs/api/accounts.md "Single
 * sign-on (OIDC, GitHub)"): the `mfa_token` of the callback's 401 and the TOTP code or a recovery
 * code (accounts/recovery-codes.ts checkLoginSecondFactor). The token serves once, for
 * {@link OAUTH_MFA_TTL_S} seconds and at most {@link OAUTH_MFA_MAX_ATTEMPTS} codes.
 * @returns a session of the account, as the callback's
 * @throws ApiError 401 AUTH_2FA_INVALID (wrong code: the token stays usable for the tries left),
 *   401 AUTH_SESSION_INVALID (unknown, used, expired or out-of-tries token),
 *   403 AUTH_ACCOUNT_DISABLED / 410 ACCOUNT_DELETED
 */
export async function completeOAuthTwoFactor(deps: Deps, body: { mfa_token: string; otp?: string | undefined; recovery_code?: string | undefined }): Promise<OAuthLoginResult> {
  const token_hash = hashSecret(body.mfa_token);
  const spent = () => new ApiError('AUTH_SESSION_INVALID', 'unknown, used or expired sign-in token, or too many wrong codes; sign in with the provider again');
  const issued = await tryMfaToken(deps.sql, token_hash, OAUTH_MFA_MAX_ATTEMPTS);
  if (!issued) throw spent();
  const user = await findUserById(deps.sql, issued.user_id);
  if (!user) throw spent();
  refuseInactiveAccount(user);
  await checkLoginSecondFactor(deps, user, { otp: body.otp, recovery_code: body.recovery_code });
  if (!(await takeMfaToken(deps.sql, token_hash))) throw spent();
  await touchIdentity(deps.sql, issued.identity_id);
  return { tokens: await openSession(deps, user.id), created: false, is_admin: false };
}

/**
 * Link the identity `profile` to `user_id`, once.
 * @returns the identity and whether it is new
 * @throws ApiError 409 AUTH_OAUTH_LINKED_OTHER_USER when another account has it
 */
async function link(deps: Deps, user_id: string, provider_id: string, profile: { subject: string; email: string }): Promise<{ identity: OAuthIdentity; created: boolean }> {
  const { row, created } = await insertIdentity(deps.sql, { id: newId('oauth_identity'), user_id, provider: provider_id, subject: profile.subject, email: profile.email, logged_in: false });
  if (row.user_id !== user_id) throw new ApiError('AUTH_OAUTH_LINKED_OTHER_USER', 'this identity is already linked to another account');
  return { identity: toIdentity(deps, row), created };
}

/**
 * Complete a link flow the signed-in `user_id` started (POST /v1/account/identities/{provider}/start).
 * @throws ApiError as completeFlow (a state of another account or a login: other_purpose),
 *   409 AUTH_OAUTH_LINKED_OTHER_USER
 */
export async function linkWithOAuth(deps: Deps, user_id: string, provider_id: string, cb: { code: string; state: string; iss?: string | undefined }): Promise<{ identity: OAuthIdentity; created: boolean }> {
  const profile = await completeFlow(deps, provider_id, cb, { purpose: 'link', user_id });
  return link(deps, user_id, provider_id, profile);
}

/**
 * Confirm a link offer a login made (`details.link_token` of its 409) as the account's owner; the
 * account's e-mail counts as verified when it is still the provider's.
 * @throws ApiError 400 AUTH_OAUTH_STATE_INVALID (unknown, used, expired or another account's
 *   token), 404 NOT_FOUND (provider no longer configured), 409 AUTH_OAUTH_LINKED_OTHER_USER
 */
export async function confirmLinkOffer(deps: Deps, user_id: string, link_token: string): Promise<{ identity: OAuthIdentity; created: boolean }> {
  const offer = await takeLinkOffer(deps.sql, hashSecret(link_token), user_id);
  if (!offer) throw stateInvalid('unknown_or_used', 'unknown, used or expired link token, or one for another account; sign in with the provider again');
  providerById(deps, offer.provider);
  const linked = await link(deps, user_id, offer.provider, offer);
  await markEmailVerified(deps.sql, user_id, offer.email);
  return linked;
}
