import { maskSecret, newId, newSecret, type ApiKey } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { insertAccessKey, type AccessKeyKind, type AccessKeyRow } from '../db/api-keys.js';
import { hashSecret } from './secrets.js';

/**
 * Create an account API key (`sk_live_` for type production, `sk_test_` for test) or a personal
 * access token (`svc_pat_`), spec 2.5, 4.3, 5.2. Scopes omitted or empty = read and write (spec
 * 4.3), de-duplicated and sorted. Only the sha256 of the secret is stored.
 * @returns the stored row and the secret, which the caller returns exactly once
 */
export async function createAccessKey(
  sql: Sql,
  input: { user_id: string; kind: AccessKeyKind; name: string; scopes?: string[]; expires_days: number; type?: 'production' | 'test' },
): Promise<{ row: AccessKeyRow; secret: string }> {
  const type = input.kind === 'pat' ? 'production' : (input.type ?? 'production');
  const secret = newSecret(input.kind === 'pat' ? 'pat' : type === 'test' ? 'api_key_test' : 'api_key_live');
  const scopes = input.scopes && input.scopes.length > 0 ? [...new Set(input.scopes)].sort() : ['read', 'write'];
  const row = await insertAccessKey(sql, {
    id: newId(input.kind === 'pat' ? 'pat' : 'api_key'), kind: input.kind, user_id: input.user_id, name: input.name,
    key_hash: hashSecret(secret), key_prefix: maskSecret(secret), type, scopes, expires_days: input.expires_days,
  });
  return { row, secret };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** ApiKey record of spec 2.5 (no secret). */
export function toApiKey(row: AccessKeyRow): ApiKey {
  return {
    id: row.id, name: row.name, key_prefix: row.key_prefix, type: row.type, scopes: row.scopes,
    status: row.revoked_at ? 'revoked' : 'active', created_at: row.created_at.toISOString(),
    expires_at: iso(row.expires_at), last_used_at: iso(row.last_used_at),
  };
}

/** Personal access token record (no secret). */
export function toPat(row: AccessKeyRow) {
  const { key_prefix, type: _type, ...rest } = toApiKey(row);
  return { ...rest, token_prefix: key_prefix };
}
