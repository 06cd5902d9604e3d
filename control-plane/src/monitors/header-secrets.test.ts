import { randomBytes } from 'node:crypto';
import t from 'tap';
import { createSecretBox } from '../secrets/secret-box.js';
import { isSecretHeader, MASK, maskedConfig, maskSecret, openedConfig, resealedConfig, sealedConfig } from './header-secrets.js';

/* The header rule, the mask, and sealing a config for storage (the API flow: header-secrets.routes.test.ts). */

t.test('every header is a secret except the listed credential-free ones', async (t) => {
  const cases: Array<[string, boolean]> = [
    ['Authorization', true], ['Proxy-Authorization', true], ['Cookie', true], ['X-Api-Key', true], ['api-key', true],
    ['Private-Token', true], ['X-Goog-Api-Key', true], ['X-Custom', true],
    ['Content-Type', false], ['accept', false], ['User-Agent', false], ['CACHE-CONTROL', false], ['Accept-Language', false],
  ];
  for (const [name, secret] of cases) t.equal(isSecretHeader(name), secret, name);
});

t.test('masks: the last 4 characters only from 16 characters on', async (t) => {
  t.equal(maskSecret('Bearer 0123456789abcdef'), '••••cdef');
  t.equal(maskSecret('0123456789abcdef'), '••••cdef');
  t.equal(maskSecret('0123456789abcde'), MASK);
  t.equal(maskSecret(''), MASK);
});

t.test('sealed for storage, opened for nodes, other types and public headers untouched', async (t) => {
  const box = createSecretBox({ current: randomBytes(32).toString('base64') });
  const config = { method: 'GET', headers: { Authorization: 'Bearer 0123456789abcdef', 'Content-Type': 'text/plain' } };
  const stored = sealedConfig(box, 'm_1', 'http', config, null);
  const headers = stored.headers as Record<string, string>;
  t.match(headers.Authorization, /^vsec1:/);
  t.equal(headers['Content-Type'], 'text/plain');
  t.same(openedConfig(box, 'm_1', 'http', stored), config);
  t.same(maskedConfig(box, 'm_1', 'http', stored).headers, { Authorization: '••••cdef', 'Content-Type': 'text/plain' });
  t.throws(() => openedConfig(box, 'm_2', 'http', stored), /does not authenticate/, 'bound to its monitor');
  const ping = { count: 4, headers: { Authorization: 'x' } };
  t.equal(sealedConfig(box, 'm_1', 'ping', ping, null), ping, 'a type without request headers');
  t.equal(resealedConfig(box, 'm_1', 'http', stored), null, 'nothing to re-seal');
  t.same(openedConfig(box, 'm_1', 'http', resealedConfig(box, 'm_1', 'http', config)!), config, 'a plaintext row is sealed');
});
