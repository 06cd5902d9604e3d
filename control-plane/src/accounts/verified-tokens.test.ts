import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import t from 'tap';
import { LIMITS, newId } from '@vantage/shared-protocol';
import { CLOCK_TOLERANCE_S, signAccessToken } from './jwt.js';
import { VERIFIED_TOKENS_MAX, verifyAccessTokenRemembered } from './verified-tokens.js';

const user_id = newId('user');
const session_id = newId('session');

t.test('a remembered token answers as verifying it would: same claims, expired after its exp, never under another key', async (t) => {
  const key = randomBytes(32);
  const token = await signAccessToken(key, user_id, session_id);
  const first = await verifyAccessTokenRemembered(key, token);
  t.match(first, { ok: true, user_id, session_id });
  const until_ms = (first as { until_ms: number }).until_ms;
  const now_s = Math.floor(Date.now() / 1000);
  t.ok(until_ms >= (now_s + LIMITS.access_token_ttl_s - 2) * 1000 && until_ms <= (now_s + LIMITS.access_token_ttl_s + CLOCK_TOLERANCE_S + 1) * 1000,
    'valid for the access token TTL plus the clock tolerance');
  t.equal(await verifyAccessTokenRemembered(key, token), first, 'the second time: the remembered check');
  t.same(await verifyAccessTokenRemembered(randomBytes(32), token), { ok: false, reason: 'invalid' }, 'another key: verified, refused');
  // Past its time the token is verified again (by the real clock, under which it is still valid here).
  const later = await verifyAccessTokenRemembered(key, token, until_ms + 1);
  t.not(later, first, 'checked again after until_ms');
  t.match(later, { ok: true, user_id });
});

t.test('an expired token is refused as expired, and a refused token is never remembered', async (t) => {
  const key = randomBytes(32);
  const iat = Math.floor(Date.now() / 1000) - LIMITS.access_token_ttl_s - 60;
  const old = await new SignJWT({ sid: session_id }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(user_id).setIssuer('vantage')
    .setIssuedAt(iat).setExpirationTime(iat + LIMITS.access_token_ttl_s).sign(key);
  t.same(await verifyAccessTokenRemembered(key, old), { ok: false, reason: 'expired' });
  t.same(await verifyAccessTokenRemembered(key, old), { ok: false, reason: 'expired' }, 'again');
  const forged = `${old.slice(0, -4)}AAAA`;
  t.same(await verifyAccessTokenRemembered(key, forged), { ok: false, reason: 'invalid' });
});

t.test('at most VERIFIED_TOKENS_MAX tokens are remembered per key, the oldest forgotten first', async (t) => {
  const key = randomBytes(32);
  const tokens = await Promise.all(Array.from({ length: VERIFIED_TOKENS_MAX + 1 }, () => signAccessToken(key, user_id, newId('session'))));
  const checks = [];
  for (const token of tokens) checks.push(await verifyAccessTokenRemembered(key, token));
  t.not(await verifyAccessTokenRemembered(key, tokens[0]!), checks[0], 'the first was forgotten: verified anew');
  t.equal(await verifyAccessTokenRemembered(key, tokens.at(-1)!), checks.at(-1), 'the last is remembered');
});
