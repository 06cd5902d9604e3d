import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { lockKeyCheck, readKeyCheck, sealedHeaderKeyIds, writeKeyCheck } from './key-check.db.js';
import { createKeyFile, findSecretsKey, type FoundSecretsKey } from './key-file.js';
import { SecretKeyError, createSecretBox, sealedKeyId, secretKeyId } from './secret-box.js';

/*
 * The database remembers which secrets key it works with (docs/operators/install.md "Secrets
 * key"): a known text sealed with the key (secret-box.ts) kept in platform_settings. A control
 * plane whose key cannot open it refuses to start, rather than sealing new secrets with a second
 * key and failing to open the existing ones: the case of a key file under `.data/` found in the
 * working folder, and a control plane started from another folder.
 */

/** What the key check seals, and the place it is bound to (secret-box.ts `aad`). */
const CHECK_TEXT = 'vantage secrets key check 1';
const CHECK_AAD = 'platform_settings:secrets_key_check';

/** The configured key cannot be used with this database: the start stops with this message. */
export class SecretsKeyRefused extends Error {
  override name = 'SecretsKeyRefused';
}

const source = (found: FoundSecretsKey) => (found.file ? `the key file ${found.file}` : 'VANTAGE_SECRETS_KEY');
const remedy = (file: string | null) =>
  `set VANTAGE_SECRETS_KEY to the key this database was set up with${file ? ` (or start with VANTAGE_DATA_DIR pointing at the folder whose secrets.key holds it; tried ${file})` : ''}; `
  + 'after a rotation, list the earlier key in VANTAGE_SECRETS_KEYS_PREVIOUS';

/**
 * Settle the secrets key of this start against the database, once, after migrations:
 * - the database has a key check: the key (`VANTAGE_SECRETS_KEY`, else `<data_dir>/secrets.key`)
 *   must open it, with `VANTAGE_SECRETS_KEYS_PREVIOUS` also tried; opened with an earlier key, it
 *   is sealed again with the current one (a finished rotation). No key at all, or one that does
 *   not open it: SecretsKeyRefused, and no key file is created;
 * - no key check (a new database, or one from before key checks): a database whose monitors
 *   hold secrets sealed with none of the configured keys is refused likewise; otherwise the key
 *   file is generated when there is no key, and the check is stored with the key.
 * Instances starting at once take an advisory lock in turn, so the first one stores the check and
 * the others are judged against it (none generates a second key).
 * @returns the key to seal with (the configuration's `secrets_key`)
 * @throws SecretsKeyRefused naming VANTAGE_SECRETS_KEY and the key file tried; an Error when the
 *   key file is malformed or cannot be written
 */
export async function settleSecretsKey(sql: Sql, config: Pick<Config, 'secrets_key' | 'secrets_keys_previous' | 'data_dir' | 'database_url'>, log: Logger): Promise<string> {
  const key = await settle(sql, config, log);
  if (!config.secrets_key && config.database_url) {
    log.warn({ file: findSecretsKey(config).file }, 'VANTAGE_SECRETS_KEY is not set: secrets are sealed with the key file of this data folder; set the same VANTAGE_SECRETS_KEY on every instance of a shared database');
  }
  return key;
}

async function settle(sql: Sql, config: Pick<Config, 'secrets_key' | 'secrets_keys_previous' | 'data_dir'>, log: Logger): Promise<string> {
  return sql.begin(async (tx) => {
    await lockKeyCheck(tx);
    const found = findSecretsKey(config);
    const stored = await readKeyCheck(tx);
    if (stored !== null) {
      const stored_id = sealedKeyId(stored);
      if (!found.key) {
        throw new SecretsKeyRefused(`no secrets key: this database's secrets are sealed with key ${stored_id}, VANTAGE_SECRETS_KEY is not set and the key file ${found.file} does not exist (no new key is made for a database that has one); ${remedy(found.file)}`);
      }
      const box = createSecretBox({ current: found.key, previous: config.secrets_keys_previous });
      try {
        if (box.open(stored, CHECK_AAD) !== CHECK_TEXT) throw new SecretKeyError('key check text differs', stored_id);
      } catch (err) {
        if (!(err instanceof SecretKeyError)) throw err;
        throw new SecretsKeyRefused(`wrong secrets key: ${source(found)} holds key ${box.key_id}, which cannot open this database's secrets (sealed with key ${stored_id}); ${remedy(found.file)}`);
      }
      if (stored_id !== box.key_id) {
        await writeKeyCheck(tx, box.seal(CHECK_TEXT, CHECK_AAD));
        log.info({ from_key_id: stored_id, key_id: box.key_id }, 'secrets key check moved to the current key');
      }
      return found.key;
    }
    const sealed_ids = await sealedHeaderKeyIds(tx);
    if (sealed_ids.length > 0) {
      const known = [found.key, ...config.secrets_keys_previous].filter((k): k is string => !!k).map(secretKeyId);
      if (!sealed_ids.some((id) => known.includes(id))) {
        const what = found.key ? `${source(found)} holds key ${secretKeyId(found.key)}` : `VANTAGE_SECRETS_KEY is not set and the key file ${found.file} does not exist`;
        throw new SecretsKeyRefused(`${found.key ? 'wrong' : 'no'} secrets key: this database's monitors hold secrets sealed with key ${sealed_ids.join(', ')}, but ${what}; ${remedy(found.file)}`);
      }
    }
    const key = found.key ?? createKeyFile(config, log);
    await writeKeyCheck(tx, createSecretBox({ current: key }).seal(CHECK_TEXT, CHECK_AAD));
    log.info({ key_id: secretKeyId(key) }, 'secrets key check stored: this database now requires this key');
    return key;
  });
}
