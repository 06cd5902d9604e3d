import { performance } from 'node:perf_hooks';
import { parseOptions } from '@node-rs/argon2';
import t from 'tap';
import { legacyScryptHash } from './password-test-support.js';
import { ARGON2ID, dummyHash, hashKind, hashPassword, needsRehash, verifyPassword } from './passwords.js';

t.test('new hashes are argon2id with the stated parameters and a fresh salt', async (t) => {
  const a = await hashPassword('staple-orbit-lantern-42');
  const b = await hashPassword('staple-orbit-lantern-42');
  t.match(a, /^\$argon2id\$v=19\$m=65536,t=3,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  t.not(a, b, 'a fresh salt each time');
  t.match(parseOptions(a), { memoryCost: ARGON2ID.memoryCost, timeCost: ARGON2ID.timeCost, parallelism: 1, outputLen: 32 });
  t.equal(await verifyPassword('staple-orbit-lantern-42', a), true);
  t.equal(await verifyPassword('staple-orbit-lantern-43', a), false);
  t.equal(hashKind(a), 'argon2id');
  t.equal(needsRehash(a), false);
});

t.test('passwords are NFC-normalised: composed and decomposed forms match', async (t) => {
  const h = await hashPassword('caf\u00e9-lantern-orbit');
  t.equal(await verifyPassword('cafe\u0301-lantern-orbit', h), true);
});

t.test('scrypt hashes made before argon2id still verify, and want a rehash', async (t) => {
  const old = await legacyScryptHash('old-scheme-password-9');
  t.equal(hashKind(old), 'scrypt');
  t.equal(await verifyPassword('old-scheme-password-9', old), true);
  t.equal(await verifyPassword('old-scheme-password-0', old), false);
  t.equal(needsRehash(old), true);
});

t.test('weaker argon2id parameters want a rehash; empty and malformed hashes never match', async (t) => {
  const { hash } = await import('@node-rs/argon2');
  const weak = await hash('x-password-1', { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
  t.equal(await verifyPassword('x-password-1', weak), true);
  t.equal(needsRehash(weak), true);
  for (const stored of ['', 'scrypt$1$1$1$AA$AA', 'scrypt$99999999$8$1$AA$AA', '$argon2id$garbage', 'plaintext']) {
    t.equal(await verifyPassword('', stored), false, `'${stored}'`);
    t.equal(await verifyPassword('plaintext', stored), false);
    if (!stored.startsWith('scrypt$')) t.equal(needsRehash(stored), false, 'nothing to rehash');
  }
});

t.test('cost: a hash, a verify and the dummy verify (measured, reported)', async (t) => {
  const h = await hashPassword('warm-up-password-1');
  const dummy = await dummyHash();
  t.equal(dummy, await dummyHash(), 'the dummy is made once');
  t.match(parseOptions(dummy), { memoryCost: ARGON2ID.memoryCost, timeCost: ARGON2ID.timeCost }, 'the dummy has the real parameters, so it costs a real verify');
  const time = async (fn: () => Promise<unknown>, n = 5) => { const s = performance.now(); for (let i = 0; i < n; i++) await fn(); return (performance.now() - s) / n; };
  const hash_ms = await time(() => hashPassword('measure-password-1'));
  // Interleaved, so a busy host slows both alike.
  let verify_ms = 0;
  let dummy_ms = 0;
  for (let i = 0; i < 5; i++) {
    verify_ms += await time(() => verifyPassword('measure-password-1', h), 1) / 5;
    dummy_ms += await time(() => verifyPassword('measure-password-1', dummy), 1) / 5;
  }
  const old = await legacyScryptHash('measure-password-1');
  const scrypt_ms = await time(() => verifyPassword('measure-password-1', old));
  t.comment(`argon2id hash ${hash_ms.toFixed(1)} ms, verify ${verify_ms.toFixed(1)} ms, dummy verify ${dummy_ms.toFixed(1)} ms; scrypt verify ${scrypt_ms.toFixed(1)} ms`);
  t.ok(dummy_ms > verify_ms / 3 && dummy_ms < verify_ms * 3, 'the dummy verify costs about what a real one does (same parameters; the bound is loose for busy hosts)');
  t.ok(hash_ms < 2000, 'a hash takes well under 2 s');
});
