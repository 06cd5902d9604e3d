import { randomBytes } from 'node:crypto';
import t from 'tap';
import { loadConfig } from '../config/index.js';
import { createSecretBox, isSealed, sealedKeyId, SecretKeyError, secretKeyFault, secretKeyId } from './secret-box.js';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('hex');

t.test('seal and open; the value is bound to its place', async (t) => {
  const box = createSecretBox({ current: keyA });
  const sealed = box.seal('Bearer s3cret', 'monitor:m_1:header:authorization');
  t.ok(isSealed(sealed));
  t.equal(sealedKeyId(sealed), box.key_id);
  t.equal(sealed.includes('s3cret'), false);
  t.not(box.seal('Bearer s3cret', 'x'), box.seal('Bearer s3cret', 'x'), 'a fresh IV each time');
  t.equal(box.open(sealed, 'monitor:m_1:header:authorization'), 'Bearer s3cret');
  t.throws(() => box.open(sealed, 'monitor:m_2:header:authorization'), /does not authenticate/, 'another place');
  const raw = Buffer.from(sealed.split(':')[2]!, 'base64url');
  raw[14] = raw[14]! ^ 1;
  t.throws(() => box.open(`vsec1:${box.key_id}:${raw.toString('base64url')}`, 'monitor:m_1:header:authorization'), SecretKeyError, 'altered');
});

t.test('rotation: the current key seals, previous keys still open; an unknown key is a clear error', async (t) => {
  const old = createSecretBox({ current: keyA });
  const sealed = old.seal('v', 'aad');
  const rotated = createSecretBox({ current: keyB, previous: [keyA] });
  t.equal(rotated.open(sealed, 'aad'), 'v');
  t.equal(sealedKeyId(rotated.seal('v', 'aad')), secretKeyId(keyB));
  const other = createSecretBox({ current: keyB });
  const err = t.throws(() => other.open(sealed, 'aad')) as SecretKeyError;
  t.type(err, SecretKeyError);
  t.equal(err.key_id, secretKeyId(keyA));
  t.match(err.message, `secret sealed with key ${secretKeyId(keyA)}, which is not configured`);
  const none = createSecretBox({});
  t.equal(none.key_id, null);
  t.throws(() => none.seal('v', 'aad'), /no secrets key is configured/);
});

t.test('keys: 32 bytes as base64 or hex; the config refuses anything else', async (t) => {
  t.equal(secretKeyFault(keyA), null);
  t.equal(secretKeyFault(keyB), null);
  for (const bad of ['short', randomBytes(16).toString('base64'), randomBytes(31).toString('hex')]) t.not(secretKeyFault(bad), null, bad);
  t.throws(() => loadConfig({ VANTAGE_SECRETS_KEY: 'too-short' }), /VANTAGE_SECRETS_KEY: must be 32 bytes/);
  t.same(loadConfig({ VANTAGE_SECRETS_KEY: keyA, VANTAGE_SECRETS_KEYS_PREVIOUS: `${keyB}` }).secrets_keys_previous, [keyB]);
});
