import { spawn, spawnSync } from 'node:child_process';
import t from 'tap';
import { watchCommandLines } from '../installer/test-support/cmdline-watch.js';
import { ROOT } from './demo/processes.js';

// README command 1, end to end: the real control plane on the embedded database, three real agent
// processes enrolled with real ent_ tokens through the API, every probe type run against local
// targets through the public API, then monitors of several types with 10 s rounds, one target
// taken down and its alert delivered to the demo's webhook receiver (signature verified), then
// mended and the resolve delivered. `--once` makes it exit after that.
t.setTimeout(600_000); // the file as a whole (tap's default per file is 120 s): agents start slowly on a loaded machine
t.test('the main job runs every probe type on three enrolled nodes, then monitors and an alert to a local receiver', { timeout: 600_000 }, async (t) => {
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

  // Monitoring: every monitor created on the three nodes, all up on every node in one snapshot.
  const monitor_types = root ? ['http', 'keyword', 'tcp', 'dns', 'ping'] : ['http', 'keyword', 'tcp', 'dns'];
  for (const type of monitor_types) t.match(out, new RegExp(`monitor m_\\w+  ${type}\\s+\\S+  on 3 nodes`), `${type} monitor placed on 3 nodes`);
  t.match(out, /test notification succeeded \(HTTP 204\), receiver verified its signature ✓/, 'the channel test reached the receiver, signed');
  const tables = out.split('monitors at ').slice(1).map((block) => block.split('└')[0]!);
  const all_up = tables.find((b) => monitor_types.every((type) => new RegExp(`│ ${type}\\s+│ ● up\\s+│ [\\d:]+\\s+│ ✓ [\\d.]+ ms\\s+│ ✓ [\\d.]+ ms\\s+│ ✓ [\\d.]+ ms\\s+│`).test(b)));
  t.ok(all_up, 'a status snapshot shows every monitor up with a latency on each of the 3 nodes');
  t.ok(tables.some((b) => /│ shop web\s+│ http\s+│ ✖ DOWN\s+│ [\d:]+\s+│ ✗ connection refused/.test(b)), 'a snapshot shows the shop down, nodes refused');
  // The alert: fired, delivered to the receiver, signature verified; then the resolve.
  t.match(out, /alert: alert\.trigger received [\d.]+ s after the target went down\n\s+webhook-id ae_\w+:0:ach_\w+:firing · signature verified ✓/, 'the trigger arrived, signed');
  t.match(out, /title\s+\[down\] shop web/);
  t.match(out, /3 of 3 reporting nodes failed/, 'the notification names the failing nodes');
  t.match(out, /alert event ae_\w+: firing/);
  t.match(out, /resolve: alert\.resolve received [\d.]+ s after the target came back\n\s+webhook-id ae_\w+:0:ach_\w+:resolved · signature verified ✓/, 'the resolve arrived, signed');
  const [, percent, monitored_s, down_s] = /uptime ([\d.]+) % of (\d+) s monitored · (\d+) s down · 1 incident · /.exec(out) ?? [];
  t.ok(percent, 'uptime counts the outage as one incident');
  // The line shows the percent to 0.1: it must be the shown seconds' ratio to within that rounding.
  const expected = ((Number(monitored_s) - Number(down_s)) / Number(monitored_s)) * 100;
  t.ok(Math.abs(Number(percent) - expected) <= 0.05 + 1e-9, `${percent} % is what ${down_s} s down of ${monitored_s} s gives (${expected.toFixed(3)} %)`);
  const [, deliveries, verified] = /receiver: (\d+) deliveries, (\d+) with a valid signature/.exec(out) ?? [];
  t.ok(Number(deliveries) >= 3, `receiver got the test, the trigger and the resolve (${deliveries})`);
  t.equal(verified, deliveries, 'every delivery verified');
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
