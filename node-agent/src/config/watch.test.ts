import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { newSecret } from '@vantage/shared-protocol';
import { capturingLog, eventually } from '../connection/test-support/helpers.js';
import { loadConfig, type ConfigSources } from './load.js';
import { ConfigFileWatch } from './watch.js';

const write = (file: string, json: unknown) => fs.writeFileSync(file, JSON.stringify(json));

function setUp(t: Test, json: Record<string, unknown>, env: Record<string, string> = {}) {
  const dir = t.testdir();
  const file = path.join(dir, 'agent.json');
  const base = { control_plane_url: 'http://cp.test', state_dir: dir, ...json };
  write(file, base);
  const sources: ConfigSources = { flags: {}, env, config_path: file, is_root: false };
  const { config } = loadConfig(sources);
  const { log, lines } = capturingLog();
  const watch = new ConfigFileWatch({ file, sources, running: config, log, interval_ms: 50 });
  t.teardown(() => watch.stop());
  return { file, base, watch, lines, warned: () => lines.filter((l) => l.level === 40).map((l) => l.msg) };
}

t.test('a changed setting is reported once, with the restart it needs', async (t) => {
  const { file, base, watch, lines, warned } = setUp(t, { concurrency: 4 });
  watch.start();
  write(file, { ...base, concurrency: 8 });
  await eventually(() => warned().length > 0, 'the change noticed', 30_000);
  t.same(warned(), [`setting concurrency changed in ${file}; restart the agent to apply it`]);
  t.match(lines.find((l) => l.level === 40), { setting: 'concurrency', file });

  // The same content saved again, and a check on an unchanged file: nothing more.
  write(file, { ...base, concurrency: 8 });
  t.same(watch.check(), []);
  t.equal(warned().length, 1, 'once per change');

  // Another value is another change; a second setting is named on its own.
  write(file, { ...base, concurrency: 9, log_level: 'debug' });
  t.same(watch.check(), ['concurrency', 'log_level']);
  t.equal(warned().length, 3);

  // Put back: nothing to restart for.
  write(file, { ...base, concurrency: 4 });
  t.same(watch.check(), []);
  t.ok(lines.some((l) => l.msg === `setting concurrency in ${file} is back to the value the agent runs with`));
});

t.test('the token is not a running setting; env still wins over the file', async (t) => {
  const { file, base, watch, warned } = setUp(t, { token: newSecret('enrollment_token'), queue_max: 10 }, { VANTAGE_AGENT_QUEUE_MAX: '20' });
  const { token: _spent, ...rest } = base as Record<string, unknown>;
  write(file, { ...rest, queue_max: 30 });
  t.same(watch.check(), [], 'token removed (as the agent does once enrolled) and an overridden setting changed: no restart helps');
  t.same(warned(), []);
});

t.test('a file the agent would refuse at its next start is said once', async (t) => {
  const { file, base, watch, warned } = setUp(t, {});
  fs.writeFileSync(file, '{ not json');
  watch.check();
  watch.check();
  t.equal(warned().length, 1);
  t.match(warned()[0], new RegExp(`^${file.replace(/[.]/g, '\\.')} changed and the agent would not start with it: config file .* is not valid JSON; the running agent keeps its settings$`));
  write(file, { ...base, concurrency: 0 });
  watch.check();
  t.match(warned()[1], /concurrency \(from file .*\): /);
});
