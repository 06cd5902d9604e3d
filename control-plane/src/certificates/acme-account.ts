import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import type * as acme from 'acme-client';
import type { Config } from '../config/index.js';
import type { SqlExecutor } from '../contracts.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { getAcmeAccount, putAcmeAccountKey, setAcmeAccountUrl } from './certificates.db.js';

/*
 * The service's ACME account (RFC 8555 §7.3) at the configured directory: its key is made once,
 * stored sealed (bound to the directory URL) and reused; the account is registered on first use.
 */

/** acme-client, loaded at the first ACME step rather than when the app starts (it brings node-forge and an X.509 stack). */
export const acmeLib = (): Promise<typeof acme> => import('acme-client');

export type AcmeConfig = Pick<Config, 'certificates_acme_directory_url' | 'certificates_acme_ca_file' | 'certificates_acme_email'>;

let trusted: string | undefined;

/**
 * Trust the CA certificates of `ca_file` for the ACME directory's TLS. acme-client sends through
 * one axios instance of its own, so this applies to ACME requests only, not to the process.
 */
function trustAcmeCa(lib: typeof acme, ca_file: string | undefined): void {
  if (!ca_file || trusted === ca_file) return;
  lib.axios.defaults.httpsAgent = new Agent({ ca: readFileSync(ca_file) });
  trusted = ca_file;
}

/**
 * An ACME client on the configured directory with the service's account, registering it (terms
 * agreed, contact e-mail when configured) the first time.
 * @throws Error when no directory is configured or the CA refuses the account
 */
export async function acmeClient(deps: { sql: SqlExecutor; config: AcmeConfig; box: SecretBox }): Promise<acme.Client> {
  const directory = deps.config.certificates_acme_directory_url;
  if (!directory) throw new Error('no ACME directory is configured (VANTAGE_CERTIFICATES_ACME_DIRECTORY_URL)');
  const lib = await acmeLib();
  trustAcmeCa(lib, deps.config.certificates_acme_ca_file);
  const aad = `acme-account:${directory}`;
  let account = await getAcmeAccount(deps.sql, directory);
  if (!account) {
    const key = await lib.crypto.createPrivateEcdsaKey('P-256');
    account = await putAcmeAccountKey(deps.sql, directory, deps.box.seal(key.toString(), aad));
  }
  const accountKey = deps.box.open(account.key_sealed, aad);
  const client = new lib.Client({ directoryUrl: directory, accountKey, accountUrl: account.account_url ?? undefined, backoffAttempts: 10, backoffMin: 500, backoffMax: 5000 });
  if (!account.account_url) {
    const email = deps.config.certificates_acme_email;
    await client.createAccount({ termsOfServiceAgreed: true, ...(email ? { contact: [`mailto:${email}`] } : {}) });
    await setAcmeAccountUrl(deps.sql, directory, client.getAccountUrl());
  }
  return client;
}
