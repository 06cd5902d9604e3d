import type { Config } from '../config/index.js';
import { publicBaseUrl } from '../config/public-url.js';

/** The relying party passkeys are bound to (W3C Web Authentication Level 3, PublicKeyCredentialRpEntity). */
export interface RelyingParty {
  /** RP id: a domain name, e.g. `vantage.example` or `localhost`. */
  id: string;
  /** Name browsers show while registering. */
  name: string;
  /** Origins (`scheme://host[:port]`) a ceremony's clientDataJSON may name. */
  origins: string[];
}

/**
 * This deployment's relying party, from configuration only (config/passkeys.ts): `passkey_rp_id`
 * else the host of the public base URL (config/public-url.ts), `passkey_origins` else the origin
 * of that URL. Computed per call: the listening port may be known only after start.
 * @returns e.g. `{ id: 'vantage.example', name: 'Vantage', origins: ['https://vantage.example'] }`
 */
export function relyingParty(config: Pick<Config, 'public_url' | 'host' | 'port' | 'passkey_rp_id' | 'passkey_rp_name' | 'passkey_origins'>): RelyingParty {
  const base = new URL(publicBaseUrl(config));
  const host = base.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    id: config.passkey_rp_id ?? host,
    name: config.passkey_rp_name,
    origins: config.passkey_origins.length > 0 ? config.passkey_origins : [base.origin],
  };
}
