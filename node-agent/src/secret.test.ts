import { inspect } from 'node:util';
import { Writable } from 'node:stream';
import t from 'tap';
import { newSecret } from '@vantage/shared-protocol';
import { createLogger } from './log.js';
import { Secret } from './secret.js';

t.test('a Secret never shows its value, except through reveal()', async (t) => {
  const value = newSecret('enrollment_token');
  const s = new Secret(value);
  t.equal(s.reveal(), value);
  t.equal(String(s), 'ent_[redacted]');
  t.equal(`${s}`, 'ent_[redacted]');
  t.equal(JSON.stringify({ token: s }), '{"token":"ent_[redacted]"}');
  t.notMatch(inspect({ s }), value);
  t.equal(new Secret('no-prefix').toString(), '[redacted]');
});

t.test('the logger redacts secrets, whether Secret objects or raw strings under known keys', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  const log = createLogger('info', sink);
  const token = newSecret('enrollment_token');
  const credential = newSecret('node_credential');
  log.info({ enrollment: new Secret(token) }, 'as a Secret (under a key redact does not know)');
  log.info({ credential, headers: { authorization: `Bearer ${credential}` } }, 'as raw strings');
  log.info({ config: { token } }, 'nested');
  t.equal(lines.length, 3);
  for (const line of lines) {
    t.notMatch(line, token);
    t.notMatch(line, credential);
  }
  t.match(lines[0], /ent_\[redacted\]/);
});
