import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createLogger } from '../log.js';
import { createKeyFile, findSecretsKey } from './key-file.js';

const log = createLogger('silent');

t.test('the key file: looked for without being made; made once, never overwritten', async (t) => {
  const data_dir = mkdtempSync(path.join(tmpdir(), 'vantage-key-'));
  t.teardown(() => rmSync(data_dir, { recursive: true, force: true }));
  const file = path.join(data_dir, 'secrets.key');
  t.same(findSecretsKey({ data_dir }), { key: null, file }, 'no file: no key, and none made');
  t.throws(() => statSync(file), { code: 'ENOENT' });
  const key = createKeyFile({ data_dir }, log);
  t.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only');
  t.equal(key, readFileSync(file, 'utf8').trim());
  t.equal(createKeyFile({ data_dir }, log), key, 'an existing file is kept');
  t.same(findSecretsKey({ data_dir }), { key, file }, 'the same key on the next start');
  t.same(findSecretsKey({ data_dir, secrets_key: 'a'.repeat(64) }), { key: 'a'.repeat(64), file: null }, 'the variable wins');
  writeFileSync(file, 'garbage\n');
  t.throws(() => findSecretsKey({ data_dir }), /invalid secrets key file .*secrets\.key: must be 32 bytes/);
});
