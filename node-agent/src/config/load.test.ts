import path from 'node:path';
import t from 'tap';
import { newSecret } from '@vantage/shared-protocol';
import { ConfigError, loadConfig } from './load.js';
import { CONFIG_DEFAULTS } from './schema.js';

t.test('defaults, then file < env < flags', async (t) => {
  const dir = t.testdir({
    'agent.json': JSON.stringify({ control_plane_url: 'http://file.test', concurrency: 4, queue_max: 10, allow_cidrs: ['198.18.0.0/15'] }),
  });
  const file = path.join(dir, 'agent.json');
  const base = loadConfig({ flags: {}, env: {}, config_path: file, is_root: false });
  t.equal(base.file, file);
  t.equal(base.config.control_plane_url, 'http://file.test');
  t.equal(base.config.concurrency, 4);
  t.equal(base.config.outbox_max_results, CONFIG_DEFAULTS.outbox_max_results);
  t.equal(base.config.outbox_max_age_s, 7 * 24 * 3600);
  t.same(base.config.allow_cidrs, ['198.18.0.0/15']);
  t.equal(base.config.state_dir, path.resolve('./.agent-state'), 'non-root default state dir');

  const env = { VANTAGE_AGENT_CONCURRENCY: '8', VANTAGE_AGENT_ALLOW_PRIVATE: 'true', VANTAGE_AGENT_ALLOW_CIDRS: '10.0.0.0/8, fd00:7661::/32' };
  const withEnv = loadConfig({ flags: {}, env, config_path: file, is_root: false }).config;
  t.equal(withEnv.concurrency, 8, 'env beats file');
  t.equal(withEnv.queue_max, 10, 'file kept where env is silent');
  t.equal(withEnv.allow_private, true);
  t.same(withEnv.allow_cidrs, ['10.0.0.0/8', 'fd00:7661::/32']);

  const token = newSecret('enrollment_token');
  const withFlags = loadConfig({ flags: { concurrency: '16', token, state_dir: dir }, env, config_path: file, is_root: true }).config;
  t.equal(withFlags.concurrency, 16, 'flag beats env');
  t.equal(withFlags.token?.reveal(), token);
  t.equal(String(withFlags.token), 'ent_[redacted]', 'token is a Secret');
  t.equal(withFlags.state_dir, dir);
});

t.test('the config file can be named by VANTAGE_AGENT_CONFIG', async (t) => {
  const dir = t.testdir({ 'a.json': JSON.stringify({ log_level: 'debug' }) });
  const { config } = loadConfig({ flags: {}, env: { VANTAGE_AGENT_CONFIG: path.join(dir, 'a.json') }, is_root: true });
  t.equal(config.log_level, 'debug');
  t.equal(config.state_dir, '/var/lib/vantage-agent', 'root default state dir');
});

t.test('bad values are rejected with the field and where it came from', async (t) => {
  const dir = t.testdir({ 'bad.json': '{ nope', 'typo.json': JSON.stringify({ concurency: 3 }), 'arr.json': '[]' });
  const cases: Array<[Parameters<typeof loadConfig>[0], RegExp]> = [
    [{ flags: {}, env: { VANTAGE_AGENT_CONCURRENCY: 'lots' }, is_root: false }, /concurrency \(from env VANTAGE_AGENT_CONCURRENCY\)/],
    [{ flags: { queue_max: '-1' }, env: {}, is_root: false }, /queue_max \(from flag --queue-max\)/],
    [{ flags: { token: 'nk_notatoken' }, env: {}, is_root: false }, /token.*ent_/],
    [{ flags: { control_plane_url: 'ftp://x.test' }, env: {}, is_root: false }, /control_plane_url.*http/],
    [{ flags: { allow_cidrs: ['10.0.0.0/99'] }, env: {}, is_root: false }, /allow_cidrs\[0\].*CIDR/],
    [{ flags: { log_level: 'loud' }, env: {}, is_root: false }, /log_level/],
    [{ flags: {}, env: {}, config_path: path.join(dir, 'missing.json'), is_root: false }, /cannot read config file/],
    [{ flags: {}, env: {}, config_path: path.join(dir, 'bad.json'), is_root: false }, /not valid JSON/],
    [{ flags: {}, env: {}, config_path: path.join(dir, 'arr.json'), is_root: false }, /JSON object/],
    [{ flags: {}, env: {}, config_path: path.join(dir, 'typo.json'), is_root: false }, /concurency/],
  ];
  for (const [sources, message] of cases) {
    t.throws(() => loadConfig(sources), message);
    try { loadConfig(sources); } catch (err) { t.type(err, ConfigError); }
  }
  const token = newSecret('enrollment_token');
  try {
    loadConfig({ flags: { token, concurrency: 'x' }, env: {}, is_root: false });
  } catch (err) {
    t.notMatch((err as Error).message, token, 'errors do not echo the token');
  }
});

t.test('browser settings: file < env < flags, with defaults and bounds', async (t) => {
  const dir = t.testdir({ 'agent.json': JSON.stringify({ browser_executable: '/opt/file/chromium', browser_concurrency: 3 }), 'empty.json': '{}' });
  const file = path.join(dir, 'agent.json');
  const none = loadConfig({ flags: {}, env: {}, config_path: path.join(dir, 'empty.json'), is_root: false }).config;
  t.equal(none.browser_executable, undefined, 'absent: the agent uses /usr/bin/chromium when present');
  t.equal(none.browser_concurrency, 2);
  t.match(loadConfig({ flags: {}, env: {}, config_path: file, is_root: false }).config, { browser_executable: '/opt/file/chromium', browser_concurrency: 3 });
  const env = { VANTAGE_AGENT_BROWSER_EXECUTABLE: '/opt/env/chromium', VANTAGE_AGENT_BROWSER_CONCURRENCY: '4' };
  t.match(loadConfig({ flags: {}, env, config_path: file, is_root: false }).config, { browser_executable: '/opt/env/chromium', browser_concurrency: 4 });
  t.match(loadConfig({ flags: { browser_executable: '/opt/flag/chromium', browser_concurrency: '1' }, env, config_path: file, is_root: false }).config,
    { browser_executable: '/opt/flag/chromium', browser_concurrency: 1 });
  t.throws(() => loadConfig({ flags: { browser_concurrency: '0' }, env: {}, config_path: file, is_root: false }), /browser_concurrency \(from flag --browser-concurrency\)/);
  t.throws(() => loadConfig({ flags: { browser_executable: 'chromium' }, env: {}, config_path: file, is_root: false }), /browser_executable.*absolute path/);
});
