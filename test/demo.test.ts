import { spawn, spawnSync } from 'node:child_process';
import t from 'tap';
import { watchCommandLines } from '../installer/test-support/cmdline-watch.js';
import { ROOT } from './demo/processes.js';

// README command 1, end to end: the real control plane on the embedded database, three real agent
// processes enrolled with real ent_ tokens through the API, and every probe type run against local
// targets through the public API. `--once` makes it exit after printing the tables.
t.setTimeout(300_000); // the file as a whole (tap's default per file is 120 s): agents start slowly on a loaded machine
t.test('the main job runs every probe type on three enrolled nodes and prints the results', { timeout: 300_000 }, async (t) => {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  // Its own process group, so a failed or timed-out run takes the control plane and agents with it.
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/demo/main.ts', '--once', '--port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killGroup = () => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } };
  t.teardown(killGroup);
  process.once('exit', killGroup);
  // Enrollment tokens are handed to the agents in their environment, never as arguments (ps).
  const watch = watchCommandLines('ent_', { process_group: child.pid! });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const leaks = watch.stop();
  t.equal(code, 0, `demo exit code (output:\n${out.slice(-3000)})`);
  t.same(leaks, [], `no token on a command line of the demo's processes (${watch.samples()} samples)`);
  t.match(out, /3 nodes online/);
  const root = process.getuid?.() === 0;
  const types = root ? ['HTTP', 'TCP', 'DNS', 'PING', 'TRACEROUTE'] : ['HTTP', 'TCP', 'DNS'];
  for (const type of types) t.match(out, new RegExp(`${type} \\S+: completed`), `${type} task completed`);
  t.equal((out.match(/· 3 ok · 0 failed/g) ?? []).length, types.length, 'every probe: 3 nodes ok, none failed');
  t.match(out, /200 · \d+ B · dns \d+ tcp \d+ ttfb \d+/, 'http row shows status, size and timing');
  t.match(out, /NOERROR via 127\.0\.0\.1:\d+ · 198\.18\.0\.10, 198\.18\.0\.11/, 'dns row shows the answers the server gave');
  t.match(out, /open · port \d+/, 'tcp row shows the open port');
  if (root) t.match(out, /3\/3 · loss 0%/, 'ping row shows all packets received');
  else t.match(out, /ping and traceroute .* skipped/);
  t.match(out, /pollution_detected false/, 'identical answers: no pollution');
});

t.test('pnpm start --help prints the usage; a bad option says which, without a stack trace', async (t) => {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'test/demo/main.ts', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  const help = run(['--help']);
  t.equal(help.status, 0, help.stderr);
  t.match(help.stdout, /^usage: pnpm start/);
  for (const opt of ['--once', '--port', '--nodes', '--help']) t.match(help.stdout, opt);
  for (const [args, message] of [[['--bogus'], /Unknown option '--bogus'/], [['--nodes', 'x'], /--nodes needs a number/], [['--port', '70000'], /--port needs a port number/]] as const) {
    const bad = run([...args]);
    t.equal(bad.status, 2, `${args.join(' ')}: exit 2`);
    t.match(bad.stderr, message, `${args.join(' ')}: says why`);
    t.notMatch(bad.stderr, /\n\s+at /, 'no stack trace');
  }
});
