import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import { secretKeyFault } from './secret-box.js';

/** Name of the generated key file under `data_dir`. */
export const SECRETS_KEY_FILE = 'secrets.key';

/** Where the secrets key was looked for, and what was found. */
export interface FoundSecretsKey {
  /** The key, or null when `VANTAGE_SECRETS_KEY` is not set and the key file does not exist. */
  key: string | null;
  /** The key file read or looked for (absolute); null when the key came from `VANTAGE_SECRETS_KEY`. */
  file: string | null;
}

/**
 * The secrets key of a configuration (docs/api/monitors.md "Secrets in headers"), without making
 * one: `VANTAGE_SECRETS_KEY` when set, else the content of `<data_dir>/secrets.key` when that file
 * exists. Whether a missing key may be generated is decided against the database
 * (secrets/key-check.ts): never when the database already has secrets.
 * @throws Error when the key file exists and does not hold a valid key, or cannot be read
 */
export function findSecretsKey(config: Pick<Config, 'secrets_key' | 'data_dir'>): FoundSecretsKey {
  if (config.secrets_key) return { key: config.secrets_key, file: null };
  const file = path.resolve(config.data_dir, SECRETS_KEY_FILE);
  let key: string;
  try {
    key = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { key: null, file };
    throw err;
  }
  const fault = secretKeyFault(key);
  if (fault) throw new Error(`invalid secrets key file ${file}: ${fault}`);
  return { key, file };
}

/**
 * Generate `<data_dir>/secrets.key` (32 random bytes as base64, file mode 0600, created with
 * O_EXCL: never overwritten; when another process made it first, its key is read).
 * @returns the key in the file
 * @throws Error when the folder or file cannot be written, or the file holds no valid key
 */
export function createKeyFile(config: Pick<Config, 'data_dir'>, log: Logger): string {
  const file = path.resolve(config.data_dir, SECRETS_KEY_FILE);
  mkdirSync(config.data_dir, { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    log.info({ file }, 'secrets key generated (VANTAGE_SECRETS_KEY not set)');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const found = findSecretsKey({ data_dir: config.data_dir });
  return found.key!;
}
