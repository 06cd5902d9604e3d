import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/** An oauth_identities row (migration 0055): a provider identity linked to an account. */
export interface IdentityRow {
  id: string;
  user_id: string;
  provider: string;
  subject: string;
  email: string;
  created_at: Date;
  last_login_at: Date | null;
}

/** A started flow (oauth_states row) as its callback reads it. */
export interface StateRow {
  provider: string;
  purpose: 'login' | 'link';
  user_id: string | null;
  code_verifier: string;
  nonce: string | null;
  expired: boolean;
}

/** Record a started flow under the hash of its `state`, valid `ttl_s` seconds. Expired flows are swept here. */
export async function insertState(sql: Sql, s: { state_hash: string; provider: string; purpose: 'login' | 'link'; user_id: string | null; code_verifier: string; nonce: string | null; ttl_s: number }): Promise<void> {
  await sql`DELETE FROM oauth_states WHERE expires_at < now() - interval '1 hour'`;
  await sql`
    INSERT INTO oauth_states (state_hash, provider, purpose, user_id, code_verifier, nonce, expires_at)
    VALUES (${s.state_hash}, ${s.provider}, ${s.purpose}, ${s.user_id}, ${s.code_verifier}, ${s.nonce}, now() + make_interval(secs => ${s.ttl_s}))`;
}

/**
 * Take a started flow once, when it is of `purpose` and (for a link) of `user_id`: the row is
 * deleted whatever happens next, so a `state` never serves twice. A flow of another purpose or
 * another account's link stays, so a wrong callback cannot use up the right one's state.
 * @returns the row (with `expired`), or null for an unknown, used or other flow's state (tell them apart with {@link findState})
 */
export async function takeState(sql: Sql, state_hash: string, expect: { purpose: 'login' | 'link'; user_id: string | null }): Promise<StateRow | null> {
  const rows = await sql<StateRow[]>`
    DELETE FROM oauth_states
    WHERE state_hash = ${state_hash} AND purpose = ${expect.purpose} AND user_id IS NOT DISTINCT FROM ${expect.user_id}
    RETURNING provider, purpose, user_id, code_verifier, nonce, expires_at < now() AS expired`;
  return rows[0] ?? null;
}

/** The provider and purpose of a started flow, read without using it up; null for an unknown or used state. */
export async function findState(sql: Sql, state_hash: string): Promise<{ provider: string; purpose: 'login' | 'link' } | null> {
  const rows = await sql<{ provider: string; purpose: 'login' | 'link' }[]>`SELECT provider, purpose FROM oauth_states WHERE state_hash = ${state_hash}`;
  return rows[0] ?? null;
}

/** The identity `subject` at `provider`, or null. */
export async function findIdentity(sql: SqlExecutor, provider: string, subject: string): Promise<IdentityRow | null> {
  const rows = await sql<IdentityRow[]>`SELECT * FROM oauth_identities WHERE provider = ${provider} AND subject = ${subject}`;
  return rows[0] ?? null;
}

/**
 * Link `subject` at `provider` to `user_id`.
 * @returns the new row, or the existing one when that identity is already linked (to this user or another: compare `user_id`)
 */
export async function insertIdentity(sql: SqlExecutor, i: { id: string; user_id: string; provider: string; subject: string; email: string; logged_in: boolean }): Promise<{ row: IdentityRow; created: boolean }> {
  const rows = await sql<IdentityRow[]>`
    INSERT INTO oauth_identities (id, user_id, provider, subject, email, last_login_at)
    VALUES (${i.id}, ${i.user_id}, ${i.provider}, ${i.subject}, ${i.email}, ${i.logged_in ? new Date() : null})
    ON CONFLICT (provider, subject) DO NOTHING
    RETURNING *`;
  if (rows[0]) return { row: rows[0], created: true };
  return { row: (await findIdentity(sql, i.provider, i.subject))!, created: false };
}

/** Note a login with this identity. */
export async function touchIdentity(sql: Sql, id: string): Promise<void> {
  await sql`UPDATE oauth_identities SET last_login_at = now() WHERE id = ${id}`;
}

/** The user's linked identities, oldest first. */
export async function listIdentities(sql: Sql, user_id: string): Promise<IdentityRow[]> {
  return sql<IdentityRow[]>`SELECT * FROM oauth_identities WHERE user_id = ${user_id} ORDER BY created_at, id`;
}

/**
 * Unlink identity `id` of `user_id`, unless it is the account's last way to log in (no password,
 * no passkey, no other identity). One statement, so two concurrent removals cannot both pass.
 * @returns 'removed', 'not_found' (no such identity of this user) or 'last_login_method'
 */
export async function deleteIdentityUnlessLast(sql: Sql, user_id: string, id: string): Promise<'removed' | 'not_found' | 'last_login_method'> {
  return sql.begin(async (tx) => {
    // The user's row locked: removals of the same account take turns.
    const [user] = await tx<{ has_password: boolean }[]>`SELECT password_hash <> '' AS has_password FROM users WHERE id = ${user_id} FOR UPDATE`;
    const [identity] = await tx<{ id: string }[]>`SELECT id FROM oauth_identities WHERE id = ${id} AND user_id = ${user_id}`;
    if (!user || !identity) return 'not_found';
    const [others] = await tx<{ n: number }[]>`
      SELECT (SELECT count(*) FROM oauth_identities WHERE user_id = ${user_id} AND id <> ${id})::int
           + (SELECT count(*) FROM passkeys WHERE user_id = ${user_id})::int AS n`;
    if (!user.has_password && others!.n === 0) return 'last_login_method';
    await tx`DELETE FROM oauth_identities WHERE id = ${id}`;
    return 'removed';
  });
}

/** Record a link offer for `user_id` under the hash of its token, valid `ttl_s` seconds. */
export async function insertLinkOffer(sql: Sql, o: { token_hash: string; user_id: string; provider: string; subject: string; email: string; ttl_s: number }): Promise<void> {
  await sql`DELETE FROM oauth_link_offers WHERE expires_at < now() - interval '1 hour'`;
  await sql`
    INSERT INTO oauth_link_offers (token_hash, user_id, provider, subject, email, expires_at)
    VALUES (${o.token_hash}, ${o.user_id}, ${o.provider}, ${o.subject}, ${o.email}, now() + make_interval(secs => ${o.ttl_s}))`;
}

/**
 * Take the unexpired link offer with this token hash made for `user_id`, once.
 * @returns the offer, or null (unknown, used, expired, or for another account: then it stays)
 */
export async function takeLinkOffer(sql: Sql, token_hash: string, user_id: string): Promise<{ provider: string; subject: string; email: string } | null> {
  const rows = await sql<{ provider: string; subject: string; email: string }[]>`
    DELETE FROM oauth_link_offers WHERE token_hash = ${token_hash} AND user_id = ${user_id} AND expires_at > now()
    RETURNING provider, subject, email`;
  return rows[0] ?? null;
}

/** Record the second-step token of a single sign-on under its hash, valid `ttl_s` seconds (migration 0060). Expired tokens are swept here. */
export async function insertMfaToken(sql: Sql, t: { token_hash: string; user_id: string; identity_id: string; ttl_s: number }): Promise<void> {
  await sql`DELETE FROM oauth_mfa_tokens WHERE expires_at < now() - interval '1 hour'`;
  await sql`
    INSERT INTO oauth_mfa_tokens (token_hash, user_id, identity_id, expires_at)
    VALUES (${t.token_hash}, ${t.user_id}, ${t.identity_id}, now() + make_interval(secs => ${t.ttl_s}))`;
}

/**
 * Count one try of a code against the token with this hash, when it is unexpired and has had
 * fewer than `max_attempts` tries (one statement: concurrent tries cannot exceed the bound).
 * @returns the account and identity it was issued for, or null (unknown, used, expired, or out of tries)
 */
export async function tryMfaToken(sql: Sql, token_hash: string, max_attempts: number): Promise<{ user_id: string; identity_id: string } | null> {
  const rows = await sql<{ user_id: string; identity_id: string }[]>`
    UPDATE oauth_mfa_tokens SET attempts = attempts + 1
    WHERE token_hash = ${token_hash} AND expires_at > now() AND attempts < ${max_attempts}
    RETURNING user_id, identity_id`;
  return rows[0] ?? null;
}

/** Use up the token with this hash after a right code. @returns false when another request used it first */
export async function takeMfaToken(sql: Sql, token_hash: string): Promise<boolean> {
  return (await sql`DELETE FROM oauth_mfa_tokens WHERE token_hash = ${token_hash} AND expires_at > now() RETURNING token_hash`).length > 0;
}
