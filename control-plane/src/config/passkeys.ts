import { z } from 'zod';
import { isWebOrigin } from '@vantage/shared-protocol';

/**
 * Passkeys (W3C Web Authentication Level 3; docs/api/accounts.md "Passkeys"): the relying party
 * browsers bind every passkey to, and how long a ceremony's challenge lives. Unset fields are
 * derived from the public URL (config/public-url.ts) when a request needs them.
 */
export const passkeysConfigSchema = z.object({
  /**
   * Relying-party id (VANTAGE_PASSKEY_RP_ID): the domain passkeys are bound to, the public URL's
   * host or a registrable suffix of it (`vantage.example` for `https://app.vantage.example`).
   * Unset: the host of VANTAGE_PUBLIC_URL, else of the listening address. Browsers refuse an IP
   * address as RP id (WebAuthn Level 3 §5.1.3, "rp.id"), so passkeys need a domain name
   * (`localhost` counts). Changing it orphans every registered passkey.
   */
  passkey_rp_id: z.string().trim().toLowerCase().min(1).max(253).regex(/^[a-z0-9.-]+$/, 'must be a domain name').optional(),
  /** Relying-party name browsers show while registering a passkey (VANTAGE_PASSKEY_RP_NAME). */
  passkey_rp_name: z.string().trim().min(1).max(64).default('Vantage'),
  /**
   * Origins passkey ceremonies are accepted from (VANTAGE_PASSKEY_ORIGINS, comma list of
   * `scheme://host[:port]`): the pages of the web app that call the browser's WebAuthn API.
   * Empty: the origin of VANTAGE_PUBLIC_URL, else of the listening address.
   */
  passkey_origins: z.array(z.string().trim().toLowerCase().refine(isWebOrigin, { message: 'must be an origin scheme://host[:port]' })).max(20).default([]),
  /**
   * Lifetime of a passkey registration or login challenge, seconds (VANTAGE_PASSKEY_CHALLENGE_TTL_S,
   * 5-3600): a challenge is usable once, within this time, for the purpose it was issued for.
   */
  passkey_challenge_ttl_s: z.coerce.number().int().min(5).max(3600).default(300),
});
