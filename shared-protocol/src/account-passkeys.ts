import { z } from 'zod';
import { codePoints } from './account.js';
import { textString } from './parse.js';

/**
 * Passkey wire shapes (docs/api/accounts.md "Passkeys"): registration and login ceremonies of
 * W3C Web Authentication Level 3, whose options and credentials travel as the JSON forms the
 * specification defines (PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON, …), so a browser passes them through `PublicKeyCredential.parseCreationOptionsFromJSON`
 * and `credential.toJSON()` unchanged.
 */

/** Most passkeys one account may hold (docs/api/accounts.md "Passkeys"). */
export const PASSKEYS_PER_ACCOUNT_MAX = 20;
/** Longest passkey name, in Unicode code points. */
export const PASSKEY_NAME_MAX_CHARS = 64;

/** base64url without padding (RFC 4648 §5), at most `max` characters. */
function base64url(max: number) {
  return z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+$/, 'must be base64url (RFC 4648 §5) without padding');
}

/** A passkey's name: trimmed, NFC, 1-64 code points, no control characters. */
const passkeyName = textString()
  .transform((s) => s.normalize('NFC').trim())
  .refine((s) => s.length > 0, { message: 'must not be blank' })
  .refine((s) => codePoints(s) <= PASSKEY_NAME_MAX_CHARS, { message: `must be at most ${PASSKEY_NAME_MAX_CHARS} characters` })
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { message: 'must not contain control characters' });

/** Authenticator transports (WebAuthn Level 3 §5.8.4); unknown values are kept as the browser sent them. */
const transports = z.array(z.string().max(32)).max(10);

/** How the authenticator was attached; a browser may send null for unknown (read as absent). */
const attachment = z.enum(['platform', 'cross-platform']).nullable().optional().transform((v) => v ?? undefined);

/**
 * A passkey as listed (never its public key): `device_type` `singleDevice` or `multiDevice`
 * (synced), `backed_up` whether a multi-device passkey is backed up now, times in RFC 3339.
 * @example { "id": "pk_…", "name": "Laptop", "device_type": "singleDevice", "backed_up": false, "transports": ["internal"], "created_at": "2026-11-28T15:00:00.000Z", "last_used_at": null }
 */
export const passkeySchema = z.object({
  id: z.string(),
  name: z.string(),
  device_type: z.enum(['singleDevice', 'multiDevice']),
  backed_up: z.boolean(),
  transports: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type Passkey = z.infer<typeof passkeySchema>;

/** `GET /v1/account/passkeys`: the account's passkeys, oldest first (a plain array). */
export const passkeyListSchema = z.array(passkeySchema);

/** PublicKeyCredentialDescriptorJSON (WebAuthn Level 3 §5.8.3): `type` is `public-key`. */
const credentialDescriptor = z.object({ id: z.string(), type: z.string(), transports: z.array(z.string()).optional() });

/**
 * PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3): what the browser's
 * `navigator.credentials.create()` takes, after `PublicKeyCredential.parseCreationOptionsFromJSON`.
 */
export const passkeyCreationOptionsSchema = z.looseObject({
  rp: z.object({ id: z.string().optional(), name: z.string() }),
  user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
  challenge: z.string(),
  pubKeyCredParams: z.array(z.object({ alg: z.number().int(), type: z.string() })),
  timeout: z.number().int().optional(),
  excludeCredentials: z.array(credentialDescriptor).optional(),
  authenticatorSelection: z.looseObject({}).optional(),
  attestation: z.string().optional(),
});

/**
 * PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3): what
 * `navigator.credentials.get()` takes; no `allowCredentials` asks for a discoverable credential.
 */
export const passkeyRequestOptionsSchema = z.looseObject({
  challenge: z.string(),
  rpId: z.string().optional(),
  timeout: z.number().int().optional(),
  allowCredentials: z.array(credentialDescriptor).optional(),
  userVerification: z.string().optional(),
});

/**
 * Answer of both options routes: the options to hand to the browser, and the `wch_` challenge id
 * to send back with the credential, usable once within `expires_in_s` seconds.
 */
function ceremonyOptions<T extends z.ZodType>(options: T) {
  return z.object({ challenge_id: z.string(), expires_in_s: z.number().int(), options });
}

/** `POST /v1/account/passkeys/options` answer. */
export const passkeyRegistrationOptionsSchema = ceremonyOptions(passkeyCreationOptionsSchema);
/** `POST /v1/auth/passkeys/options` answer. */
export const passkeyLoginOptionsSchema = ceremonyOptions(passkeyRequestOptionsSchema);

/** RegistrationResponseJSON (WebAuthn Level 3): `credential.toJSON()` after `create()`. */
export const registrationCredentialSchema = z.object({
  id: base64url(1366),
  rawId: base64url(1366),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(65536),
    authenticatorData: base64url(65536).optional(),
    transports: transports.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(8192).optional(),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

/** AuthenticationResponseJSON (WebAuthn Level 3): `credential.toJSON()` after `get()`. */
export const authenticationCredentialSchema = z.object({
  id: base64url(1366),
  rawId: base64url(1366),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(65536),
    signature: base64url(4096),
    userHandle: z.string().max(128).regex(/^[A-Za-z0-9_-]*$/, 'must be base64url (RFC 4648 §5) without padding').nullable().optional().transform((v) => v ?? undefined),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

/** The `wch_` id an options route answered with. */
const challengeId = z.string().min(1).max(64);

/**
 * `POST /v1/account/passkeys` body: the challenge id of `POST /v1/account/passkeys/options`, the
 * browser's registration credential, and a name (1-64 code points, e.g. "Laptop").
 */
export const passkeyRegisterRequestSchema = z.strictObject({
  challenge_id: challengeId,
  name: passkeyName,
  credential: registrationCredentialSchema,
});
export type PasskeyRegisterRequest = z.infer<typeof passkeyRegisterRequestSchema>;

/** `PATCH /v1/account/passkeys/{id}` body: the new name. */
export const passkeyRenameRequestSchema = z.strictObject({ name: passkeyName });

/**
 * `POST /v1/auth/passkeys/options` body: `email` narrows the login to that account's passkeys;
 * without it the browser offers the discoverable passkeys it holds for this site.
 */
export const passkeyLoginOptionsRequestSchema = z.strictObject({
  email: textString().trim().min(1).max(254).optional(),
});

/** `POST /v1/auth/passkeys/login` body: the challenge id of the options and the browser's assertion. */
export const passkeyLoginRequestSchema = z.strictObject({
  challenge_id: challengeId,
  credential: authenticationCredentialSchema,
});
export type PasskeyLoginRequest = z.infer<typeof passkeyLoginRequestSchema>;
