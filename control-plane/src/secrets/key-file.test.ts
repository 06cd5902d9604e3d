import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { withSecretsKey } from './key-file.js';

const log = createLogger('silent');

t.test('without VANTAGE_SECRETS_KEY a key file is generated once under the data folder', async (t) => {
  const data_dir = mkdtempSync(path.join(tmpdir(), 'vantage-key-'));
  t.teardown(() => rmSync(data_dir, { recursive: true, force: true }));
  const first = withSecretsKey(loadConfig({}, { data_dir }), log);
  const file = path.join(data_dir, 'secrets.key');
  t.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only');
  t.equal(first.secrets_key, readFileSync(file, 'utf8').trim());
  t.equal(withSecretsKey(loadConfig({}, { data_dir }), log).secrets_key, first.secrets_key, 'the same key on the next start');
  const given = withSecretsKey(loadConfig({ VANTAGE_SECRETS_KEY: 'a'.repeat(64) }, { data_dir }), log);
  t.equal(given.secrets_key, 'a'.repeat(64), 'the variable wins');
  writeFileSync(file, 'garbage\n');
  t.throws(() => withSecretsKey(loadConfig({}, { data_dir }), log), /invalid secrets key file .*secrets\.key: must be 32 bytes/);
});
