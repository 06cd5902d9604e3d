import { z } from 'zod';
import { secretKeyFault } from '../secrets/secret-box.js';

const key = z.string().trim().refine((k) => secretKeyFault(k) === null, { message: 'must be 32 bytes as base64 (44 characters) or hex (64 characters)' });

/**
 * Encryption of secrets stored in the database (docs/api/monitors.md "Secrets in headers"). Read
 * once in main.ts (VANTAGE_<FIELD>); main.ts fills `secrets_key` from a key file under `data_dir`
 * when it is not set, after checking it against the database's key check (secrets/key-check.ts).
 */
export const secretsConfigSchema = z.object({
  /**
   * The AES-256-GCM key new secrets are encrypted with (VANTAGE_SECRETS_KEY): 32 random bytes as
   * base64 or hex (`openssl rand -base64 32`). Every instance sharing a database needs the same key.
   * Unset: `<data_dir>/secrets.key`, made on the first start of a new database only. A key that
   * cannot open the database's key check stops the start (docs/operators/install.md "Secrets key").
   */
  secrets_key: key.optional(),
  /**
   * Earlier keys, still accepted for reading (VANTAGE_SECRETS_KEYS_PREVIOUS, comma-separated):
   * after a rotation, secrets encrypted with them are re-encrypted with `secrets_key` at start.
   */
  secrets_keys_previous: z.array(key).default([]),
});
