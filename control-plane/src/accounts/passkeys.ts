import type {
  AuthenticationResponseJSON, RegistrationResponseJSON, verifyAuthenticationResponse, verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { newId, PASSKEYS_PER_ACCOUNT_MAX, type Passkey, type PasskeyLoginRequest, type PasskeyRegisterRequest } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { refuseInactiveAccount } from './account-status.js';
import { findUserByEmail, type UserRow } from './accounts.db.js';
import { relyingParty } from './passkey-relying-party.js';
import {
  findPasskeyByCredentialId, insertChallenge, insertPasskey, listPasskeys, recordPasskeyUse, takeChallenge,
  type ChallengePurpose, type PasskeyRow,
} from './passkeys.db.js';

/** The WebAuthn library, loaded at the first passkey ceremony rather than when the app starts (with its X.509 and ASN.1 parsers, one of the app's heaviest imports). */
const webauthn = () => import('@simplewebauthn/server');

type Deps = Pick<AppDeps, 'config' | 'sql'>;

/** A passkey as the API lists it (docs/api/accounts.md "Passkeys"): never its public key. */
export function toPasskey(row: PasskeyRow): Passkey {
  return {
    id: row.id, name: row.name, device_type: row.device_type, backed_up: row.backed_up, transports: row.transports,
    created_at: row.created_at.toISOString(), last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

/** The WebAuthn user handle of an account: the UTF-8 bytes of its opaque `u_` id (no personal data, WebAuthn Level 3 §14.6.1). */
function userHandle(user_id: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(user_id);
}

/** Store a fresh challenge for a ceremony and answer with its id and lifetime. */
async function issue<T extends { challenge: string }>(deps: Deps, purpose: ChallengePurpose, user_id: string | null, options: T) {
  const challenge_id = newId('webauthn_challenge');
  const ttl_s = deps.config.passkey_challenge_ttl_s;
  await insertChallenge(deps.sql, { id: challenge_id, purpose, user_id, challenge: options.challenge, ttl_s });
  return { challenge_id, expires_in_s: ttl_s, options };
}

/**
 * Take the challenge a ceremony presents and check that the browser signed exactly it
 * (clientDataJSON `challenge` against the one issued, WebAuthn Level 3 §7.1 and §7.2).
 * @throws ApiError AUTH_WEBAUTHN_CHALLENGE_INVALID (400) for an unknown, used, expired challenge,
 *   one issued for another purpose or account, or one other than the credential's; VALIDATION_FAILED
 *   when clientDataJSON is not base64url JSON
 * @returns the challenge and the account it is bound to (`user_id` null: a login without e-mail)
 */
async function takeCeremonyChallenge(
  deps: Deps, challenge_id: string, purpose: ChallengePurpose, clientDataJSON: string, user_id?: string,
): Promise<{ challenge: string; user_id: string | null }> {
  const taken = await takeChallenge(deps.sql, challenge_id, purpose, user_id);
  if (taken === 'unknown') throw new ApiError('AUTH_WEBAUTHN_CHALLENGE_INVALID', 'unknown or already used challenge_id');
  if (taken === 'expired') throw new ApiError('AUTH_WEBAUTHN_CHALLENGE_INVALID', 'challenge expired: ask for new options');
  let signed: unknown;
  try {
    signed = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
  } catch {
    throw new ApiError('VALIDATION_FAILED', 'credential.response.clientDataJSON: must be base64url-encoded JSON', { fields: [{ path: 'credential.response.clientDataJSON', message: 'must be base64url-encoded JSON' }] });
  }
  if (signed !== taken.challenge) throw new ApiError('AUTH_WEBAUTHN_CHALLENGE_INVALID', 'the credential answers another challenge than challenge_id');
  return taken;
}

/**
 * Begin registering a passkey for `user` (WebAuthn Level 3 §7.1): creation options asking for a
 * discoverable credential with user verification, excluding the account's passkeys.
 * @throws ApiError CONFLICT (409) when the account holds {@link PASSKEYS_PER_ACCOUNT_MAX} passkeys
 * @returns `{ challenge_id, expires_in_s, options }`
 */
export async function startPasskeyRegistration(deps: Deps, user: UserRow) {
  const existing = await listPasskeys(deps.sql, user.id);
  if (existing.length >= PASSKEYS_PER_ACCOUNT_MAX) throw new ApiError('CONFLICT', `an account holds at most ${PASSKEYS_PER_ACCOUNT_MAX} passkeys`, { limit: PASSKEYS_PER_ACCOUNT_MAX });
  const rp = relyingParty(deps.config);
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name, rpID: rp.id,
    userID: userHandle(user.id), userName: user.email || user.id, userDisplayName: user.display_name ?? user.email,
    timeout: deps.config.passkey_challenge_ttl_s * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return issue(deps, 'registration', user.id, options);
}

/**
 * Finish a registration (WebAuthn Level 3 §7.1): take the challenge, verify the attestation
 * (origin, RP id, user presence and verification), store the passkey under `body.name`.
 * @throws ApiError AUTH_WEBAUTHN_CHALLENGE_INVALID (400, see takeCeremonyChallenge), VALIDATION_FAILED
 *   (400) when the credential does not verify, CONFLICT (409) when it is registered already or the
 *   account is full
 */
export async function finishPasskeyRegistration(deps: Deps, user_id: string, body: PasskeyRegisterRequest): Promise<PasskeyRow> {
  const { challenge } = await takeCeremonyChallenge(deps, body.challenge_id, 'registration', body.credential.response.clientDataJSON, user_id);
  const rp = relyingParty(deps.config);
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await (await webauthn()).verifyRegistrationResponse({
      response: body.credential as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: true,
    });
  } catch (err) {
    throw new ApiError('VALIDATION_FAILED', `passkey registration did not verify: ${(err as Error).message}`);
  }
  if (!verified.verified) throw new ApiError('VALIDATION_FAILED', 'passkey registration did not verify');
  const info = verified.registrationInfo;
  const row = await insertPasskey(deps.sql, {
    id: newId('passkey'), user_id, name: body.name,
    credential_id: info.credential.id, public_key: info.credential.publicKey, sign_count: info.credential.counter,
    transports: body.credential.response.transports ?? [], device_type: info.credentialDeviceType, backed_up: info.credentialBackedUp,
  }, PASSKEYS_PER_ACCOUNT_MAX);
  if (row === 'taken') throw new ApiError('CONFLICT', 'this passkey is registered already');
  if (row === 'limit') throw new ApiError('CONFLICT', `an account holds at most ${PASSKEYS_PER_ACCOUNT_MAX} passkeys`, { limit: PASSKEYS_PER_ACCOUNT_MAX });
  return row;
}

/**
 * Begin a passkey login (WebAuthn Level 3 §7.2) with user verification required. With `email`,
 * the options list that account's passkeys and the challenge is bound to it; without (or for an
 * address of no account) the browser offers its discoverable passkeys for this RP.
 * @returns `{ challenge_id, expires_in_s, options }`
 */
export async function startPasskeyLogin(deps: Deps, email: string | undefined) {
  const user = email === undefined ? null : await findUserByEmail(deps.sql, email);
  const passkeys = user ? await listPasskeys(deps.sql, user.id) : [];
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: relyingParty(deps.config).id,
    timeout: deps.config.passkey_challenge_ttl_s * 1000,
    userVerification: 'required',
    ...(passkeys.length > 0 ? { allowCredentials: passkeys.map((p) => ({ id: p.credential_id, transports: p.transports })) } : {}),
  });
  return issue(deps, 'authentication', user?.id ?? null, options);
}

/**
 * Finish a passkey login (WebAuthn Level 3 §7.2): take the challenge, find the passkey, verify
 * the assertion (origin, RP id, user verification, signature, a counter that moves forward),
 * then record its use (sign_count, last_used_at).
 * @throws ApiError AUTH_WEBAUTHN_CHALLENGE_INVALID (400), AUTH_CREDENTIALS_INVALID (401: unknown
 *   passkey, one of another account than the e-mail named, a bad signature, a counter at or below
 *   the stored one), AUTH_ACCOUNT_DISABLED (403)
 * @returns the account's `u_` id
 */
export async function finishPasskeyLogin(deps: Deps, body: PasskeyLoginRequest): Promise<string> {
  const { challenge, user_id: bound_to } = await takeCeremonyChallenge(deps, body.challenge_id, 'authentication', body.credential.response.clientDataJSON);
  const passkey = await findPasskeyByCredentialId(deps.sql, body.credential.id);
  if (!passkey) throw new ApiError('AUTH_CREDENTIALS_INVALID', 'unknown passkey');
  if (bound_to !== null && passkey.user_id !== bound_to) throw new ApiError('AUTH_CREDENTIALS_INVALID', 'this passkey is not one of the account the options were asked for');
  const handle = body.credential.response.userHandle;
  if (handle && handle !== Buffer.from(userHandle(passkey.user_id)).toString('base64url')) throw new ApiError('AUTH_CREDENTIALS_INVALID', 'user handle does not match the passkey');
  const rp = relyingParty(deps.config);
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await (await webauthn()).verifyAuthenticationResponse({
      response: body.credential as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: true,
      credential: { id: passkey.credential_id, publicKey: new Uint8Array(passkey.public_key), counter: passkey.sign_count, transports: passkey.transports },
    });
  } catch (err) {
    throw new ApiError('AUTH_CREDENTIALS_INVALID', `passkey assertion did not verify: ${(err as Error).message}`);
  }
  if (!verified.verified) throw new ApiError('AUTH_CREDENTIALS_INVALID', 'passkey assertion did not verify');
  refuseInactiveAccount({ status: passkey.user_status, deletion_scheduled_at: passkey.deletion_scheduled_at });
  const info = verified.authenticationInfo;
  if (!(await recordPasskeyUse(deps.sql, passkey.id, info.newCounter, info.credentialBackedUp))) {
    throw new ApiError('AUTH_CREDENTIALS_INVALID', 'signature counter did not increase: the assertion was used already or the authenticator was cloned');
  }
  return passkey.user_id;
}
