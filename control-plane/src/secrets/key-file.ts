import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import { secretKeyFault } from './secret-box.js';

/** Name of the generated key file under `data_dir`. */
export const SECRETS_KEY_FILE = 'secrets.key';

/**
 * The configuration with its secrets key (docs/api/monitors.md "Secrets in headers"), read once at
 * start: `VANTAGE_SECRETS_KEY` when set; otherwise `<data_dir>/secrets.key`, generated on first
 * start (32 random bytes as base64, file mode 0600, never overwritten). With a database server
 * (several instances may share it) a warning says to set the key: each instance would otherwise
 * make its own and could not open the others' secrets.
 * @throws Error when the key file exists and does not hold a valid key
 */
export function withSecretsKey(config: Config, log: Logger): Config {
  if (config.secrets_key) return config;
  const file = path.join(config.data_dir, SECRETS_KEY_FILE);
  let key: string;
  try {
    key = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(config.data_dir, { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      log.info({ file }, 'secrets key generated (VANTAGE_SECRETS_KEY not set)');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    key = readFileSync(file, 'utf8').trim();
  }
  const fault = secretKeyFault(key);
  if (fault) throw new Error(`invalid secrets key file ${file}: ${fault}`);
  if (config.database_url) {
    log.warn({ file }, 'VANTAGE_SECRETS_KEY is not set: secrets are sealed with this instance\'s key file; set the same VANTAGE_SECRETS_KEY on every instance of a shared database');
  }
  return { ...config, secrets_key: key };
}
