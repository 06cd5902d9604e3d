import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { watchCommandLines } from '../installer/test-support/cmdline-watch.js';

/**
 * The one-line installer (docs/operators/install.md), for real: install.sh is served by a running
 * control plane, fetched with curl and run inside a network namespace host; the agent it installs
 * enrolls over the veth link. systemd is not PID 1 here, so stand-ins (installer/test-support/
 * systemctl and journalctl) start the unit's ExecStart as its User= with CAP_NET_RAW and hand
 * back its output; the unit file itself is checked with `systemd-analyze verify`. VANTAGE_ROOT
 * keeps every system path under a temp folder and `--user nobody` avoids creating a user.
 */

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCRIPT = join(REPO, 'installer', 'install.sh');
const STANDIN_DIR = join(REPO, 'installer', 'test-support');
const AGENT_ENTRY = join(REPO, 'node-agent', 'src', 'cli', 'main.ts');
const TEST_APP = join(REPO, 'control-plane', 'src', 'test-support', 'app.ts');
const NODE_ID = /\bn_[0-9A-Za-z]{26}\b/;
const UNIT = 'vantage-agent.service';

// The bundle is built on the first request (esbuild, native modules): more than tap's 120 s default
// on a loaded machine, with four installs after it.
t.setTimeout(900_000);

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** A fresh VANTAGE_ROOT (0755 so the service user can reach the state folder inside). */
function fakeRoot(t: { teardown(fn: () => unknown): void }, systemd: boolean): string {
  const root = mkdtempSync(join(tmpdir(), 'vantage-root-'));
  chmodSync(root, 0o755);
  if (systemd) mkdirSync(join(root, 'run', 'systemd', 'system'), { recursive: true });
  t.teardown(() => {
    // Stop an agent the stand-in started, whatever the test's outcome.
    spawnSync(join(STANDIN_DIR, 'systemctl'), ['stop', 'vantage-agent.service'], { env: { ...process.env, VANTAGE_ROOT: root } });
    rmSync(root, { recursive: true, force: true });
  });
  return root;
}

t.test('install.sh and the stand-ins parse as POSIX sh', async (t) => {
  for (const file of [SCRIPT, join(STANDIN_DIR, 'systemctl'), join(STANDIN_DIR, 'journalctl')]) {
    t.equal(spawnSync('sh', ['-n', file]).status, 0, `sh -n ${file}`);
    if (has('dash')) t.equal(spawnSync('dash', ['-n', file]).status, 0, `dash -n ${file}`);
  }
  const script = readFileSync(SCRIPT, 'utf8');
  t.match(script, /^#!\/bin\/sh\n/, 'sh shebang');
  t.match(script, /^set -eu$/m);
  t.match(script, /\nmain "\$@"\n$/, 'main "$@" is the last line');
  t.match(script, /^DEFAULT_URL='__VANTAGE_BASE_URL__'$/m, 'the placeholder the route replaces');
});

t.test('shellcheck finds nothing', { skip: !has('shellcheck') && 'shellcheck is not installed (apt-get install -y shellcheck)' }, async (t) => {
  for (const file of [SCRIPT, join(STANDIN_DIR, 'systemctl'), join(STANDIN_DIR, 'journalctl')]) {
    const res = spawnSync('shellcheck', ['--shell=sh', file], { encoding: 'utf8' });
    t.equal(res.status, 0, `shellcheck ${file}\n${res.stdout}`);
  }
});

t.test('bad usage exits 2 and touches nothing', async (t) => {
  const root = fakeRoot(t, true);
  const tokenFile = join(root, 'run', 'token');
  writeFileSync(tokenFile, 'not-a-token\n');
  const cases: Array<[string, string[], Record<string, string>, RegExp]> = [
    ['unknown option', ['--bogus'], {}, /unknown option: --bogus/],
    ['token on the command line', ['--url', 'http://198.19.0.1:1', '--token', 'ent_abc'], {}, /--token is not accepted: .*process list.*VANTAGE_TOKEN=.*--token-file/],
    ['token shape', ['--url', 'http://198.19.0.1:1'], { VANTAGE_TOKEN: 'sk_live_x' }, /VANTAGE_TOKEN must hold an enrollment token/],
    ['token file shape', ['--url', 'http://198.19.0.1:1', '--token-file', tokenFile], {}, /--token-file .* must hold an enrollment token/],
    ['token file missing', ['--url', 'http://198.19.0.1:1', '--token-file', join(root, 'nope')], {}, /no such readable file/],
    ['token twice', ['--url', 'http://198.19.0.1:1', '--token-file', tokenFile], { VANTAGE_TOKEN: 'ent_abc' }, /not both/],
    ['no url (script not served)', [], { VANTAGE_TOKEN: 'ent_abc' }, /--url is required/],
    ['url scheme', ['--url', 'ftp://x'], { VANTAGE_TOKEN: 'ent_abc' }, /http:\/\/ or https:\/\//],
    ['first install without token', ['--url', 'http://198.19.0.1:1'], {}, /enrollment token is required.*VANTAGE_TOKEN.*--token-file/],
    ['relative prefix', ['--url', 'http://198.19.0.1:1', '--prefix', 'opt'], { VANTAGE_TOKEN: 'ent_a' }, /absolute/],
  ];
  for (const [name, args, extra, message] of cases) {
    const res = spawnSync('sh', [SCRIPT, ...args], { encoding: 'utf8', env: { ...cleanEnv(), VANTAGE_ROOT: root, ...extra } });
    t.equal(res.status, 2, `${name}: exit 2`);
    t.match(res.stderr, message, `${name}: says why`);
  }
  const help = spawnSync('sh', [SCRIPT, '--help'], { encoding: 'utf8' });
  t.equal(help.status, 0);
  for (const opt of ['VANTAGE_TOKEN', '--token-file', '--url', '--name', '--allow-private', '--allow-cidrs', '--prefix', '--foreground', '--uninstall', '--no-start', '--yes']) {
    t.match(help.stdout, opt, `--help documents ${opt}`);
  }
  t.notMatch(help.stdout, /--token ent/, 'and no --token option');
  t.same(execFileSync('find', [root, '-mindepth', '1', '-not', '-path', `${root}/run*`], { encoding: 'utf8' }), '', 'nothing written');
});

const notReady = [
  !existsSync(AGENT_ENTRY) && `the agent CLI (${AGENT_ENTRY})`,
  !existsSync(TEST_APP) && `the control-plane test app (${TEST_APP})`,
].filter(Boolean);

t.test('install, enroll, upgrade in place, uninstall: inside a namespace host', {
  skip: notReady.length > 0 ? `waiting on ${notReady.join(' and ')}` : false,
  timeout: 900_000,
}, async (t) => {
  const { buildBundle } = await import('../installer/build-bundle.js');
  const { namespaceHost, runInNamespace, tcpRelay } = await import('../installer/test-support/netns-host.js');
  const { testApp, registerUser } = await import(pathToFileURL(TEST_APP).href);

  // A fresh control plane: its bundle folder is empty until the installer asks for the bundle.
  const dist = mkdtempSync(join(tmpdir(), 'vantage-dist-'));
  t.teardown(() => rmSync(dist, { recursive: true, force: true }));
  const host = namespaceHost(t);
  const upstream = { host: '127.0.0.1', port: 0 };
  const relayPort = await tcpRelay(t, host.root_addr, upstream);
  const base = `http://${host.root_addr}:${relayPort}`;
  const { app, url } = await testApp(t, { config: { install_bundle_dir: dist, public_url: base } });
  upstream.port = Number(new URL(url).port);

  const { access_token } = await registerUser(app);
  const auth = { authorization: `Bearer ${access_token}` };
  const newToken = async (label: string) => {
    const created = await app.request('/v1/enrollment-tokens', {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ label }),
    });
    if (created.status !== 201 && created.status !== 200) throw new Error(`POST /v1/enrollment-tokens: ${created.status} ${await created.text()}`);
    return ((await created.json()) as { data: { token: string } }).data.token;
  };
  const token = await newToken('installer test');

  const nodes = async (): Promise<Array<{ id: string; status?: string }>> => {
    const res = await app.request('/v1/nodes', { headers: auth });
    const body = (await res.json()) as { data: { items?: Array<{ id: string; status?: string }> } | Array<{ id: string; status?: string }> };
    return Array.isArray(body.data) ? body.data : body.data.items ?? [];
  };
  const waitOnline = async (id: string) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const node = (await nodes()).find((n) => n.id === id);
      if (node?.status === 'online') return node;
      if (Date.now() > deadline) throw new Error(`node ${id} not online in GET /v1/nodes: ${JSON.stringify(node)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  const root = fakeRoot(t, true);
  const env = { ...cleanEnv(), PATH: `${STANDIN_DIR}:${process.env.PATH}`, VANTAGE_ROOT: root };
  const install = (args: string, e: NodeJS.ProcessEnv = env) => runInNamespace(host.ns, `curl -fsSL ${base}/install.sh | sh -s -- ${args}`, e);
  const prefix = join(root, 'opt', 'vantage-agent');
  const confFile = join(root, 'etc', 'vantage', 'agent.json');
  const stateDir = join(root, 'var', 'lib', 'vantage-agent');
  const unitFile = join(root, 'etc', 'systemd', 'system', UNIT);
  const pidFile = join(root, `${UNIT}.pid`);
  const logFile = join(root, `${UNIT}.log`);
  const nobody = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());

  let nodeId = '';
  let firstPid = 0;
  let firstVersion = '';
  await t.test('first install from a fresh control plane enrolls the node and prints its id', async (t) => {
    // The control plane builds the bundle now, in this process: under umask 077 its files would be
    // root-only unless the build and the installer both set the modes (the agent runs as nobody).
    const umask = process.umask(0o077);
    const watch = watchCommandLines(token);
    let res;
    try {
      res = await install(`--user nobody --yes --name edge-ns-1 --allow-cidrs 198.18.0.0/15 --wait 180`, { ...env, VANTAGE_TOKEN: token });
    } finally {
      process.umask(umask);
    }
    const leaks = watch.stop();
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '(no agent log)';
    t.equal(res.code, 0, `install.sh exit 0\n${res.stderr}\nagent log:\n${log}`);
    t.same(leaks, [], `the token is on no process's command line (${watch.samples()} samples)`);
    nodeId = res.stdout.match(NODE_ID)?.[0] ?? '';
    t.ok(nodeId, `node id printed: ${res.stdout.trim()}`);

    const manifest = JSON.parse(readFileSync(join(dist, 'agent.json'), 'utf8'));
    t.match(manifest, { built_by: 'control-plane', version: String, source_sha256: /^[0-9a-f]{64}$/ }, 'the control plane built the bundle itself');
    firstVersion = manifest.version;
    t.equal(symlinkTarget(join(prefix, 'current')), `releases/${firstVersion}`);
    t.equal(modeOf(join(prefix, 'releases', firstVersion)), 0o755, 'release folder readable by the service user');
    t.equal(modeOf(join(prefix, 'releases', firstVersion, 'node-agent.mjs')), 0o644);
    // The check runner's pattern worker loads these by path: they must be files beside the bundle.
    const resolved = spawnSync(process.execPath, ['-e', "const r = require('node:module').createRequire(process.argv[1]); console.log(r.resolve('re2js')); console.log(r.resolve('jsonpath-rfc9535'))",
      join(prefix, 'releases', firstVersion, 'node-agent.mjs')], { encoding: 'utf8' });
    t.equal(resolved.status, 0, `re2js and jsonpath-rfc9535 resolve from the installed release\n${resolved.stderr}`);
    t.equal(modeOf(confFile), 0o600, 'config 0600');
    t.equal(statSync(confFile).uid, nobody, 'config owned by the service user');
    t.equal(modeOf(stateDir), 0o700, 'state dir 0700');
    t.equal(statSync(stateDir).uid, nobody);
    const conf = JSON.parse(readFileSync(confFile, 'utf8'));
    t.match(conf, { control_plane_url: base, state_dir: stateDir, name: 'edge-ns-1', allow_cidrs: ['198.18.0.0/15'] });
    t.notOk('token' in conf, 'the spent token is removed from the config once the node is enrolled');

    const unit = readFileSync(unitFile, 'utf8');
    for (const line of ['User=nobody', 'AmbientCapabilities=CAP_NET_RAW', 'CapabilityBoundingSet=CAP_NET_RAW', 'NoNewPrivileges=yes',
      'ProtectSystem=strict', `ReadWritePaths=${stateDir}`, `ReadWritePaths=-${confFile}`, 'Restart=always', 'RestartPreventExitStatus=3', 'WantedBy=multi-user.target']) {
      t.match(unit, new RegExp(`^${line}$`, 'm'), line);
    }
    t.match(unit, new RegExp(`^ExecStart=\\S+/node ${prefix}/current/node-agent\\.mjs run --config ${confFile}$`, 'm'));
    t.notMatch(unit, /ent_/, 'no token in the unit');
    if (has('systemd-analyze')) {
      const verify = spawnSync('systemd-analyze', ['verify', '--man=no', unitFile], { encoding: 'utf8' });
      t.equal(verify.status, 0, `systemd-analyze verify\n${verify.stderr}`);
      t.notMatch(verify.stderr, /Unknown (key|section|lvalue)|Failed|not executable/, verify.stderr);
    } else t.comment('systemd-analyze not installed: unit not verified');

    const calls = readFileSync(join(root, 'systemctl.log'), 'utf8');
    t.match(calls, /^daemon-reload$/m);
    t.match(calls, new RegExp(`^enable --now ${UNIT}$`, 'm'));
    firstPid = Number(readFileSync(pidFile, 'utf8'));
    const status = readFileSync(`/proc/${firstPid}/status`, 'utf8');
    t.match(status, new RegExp(`^Uid:\\s+${nobody}\\s+${nobody}\\s`, 'm'), 'the agent runs as the service user');
    t.match(status, /^CapEff:\s+0000000000002000$/m, 'with CAP_NET_RAW and nothing else');
    t.match(status, /^CapBnd:\s+0000000000002000$/m, 'bounded to CAP_NET_RAW');
    const listed = await waitOnline(nodeId) as { name?: string };
    t.pass(`GET /v1/nodes lists ${nodeId} online`);
    t.equal(listed.name, 'edge-ns-1', 'the node carries the --name given to the installer');
  });

  await t.test('a bundle whose checksum does not match is refused', async (t) => {
    const other = fakeRoot(t, true);
    const manifestPath = join(dist, 'agent.json');
    const manifest = readFileSync(manifestPath, 'utf8');
    writeFileSync(manifestPath, JSON.stringify({ ...JSON.parse(manifest), sha256: '0'.repeat(64) }));
    const res = await install('--user nobody --yes', { ...env, VANTAGE_ROOT: other, VANTAGE_TOKEN: 'ent_notconsumed' });
    writeFileSync(manifestPath, manifest);
    t.equal(res.code, 1, res.stderr);
    t.match(res.stderr, /checksum mismatch/);
    t.notOk(existsSync(join(other, 'opt', 'vantage-agent', 'current')), 'nothing installed');
    t.notOk(existsSync(join(other, 'etc', 'vantage', 'agent.json')), 'no config written');
  });

  await t.test('a failed download prints the control plane\'s reason', async (t) => {
    const other = fakeRoot(t, true);
    const res = await install(`--url ${base}/elsewhere --user nobody --yes`, { ...env, VANTAGE_ROOT: other, VANTAGE_TOKEN: 'ent_notconsumed' });
    t.equal(res.code, 1, res.stderr);
    t.match(res.stderr, /answered HTTP 404: NOT_FOUND: \S/, 'the status, the error code and its message');
  });

  await t.test('a refused token: the installer stops at once and shows the agent\'s own log', async (t) => {
    const other = fakeRoot(t, true);
    const unknown = `ent_${randomBytes(16).toString('hex')}`;
    const res = await install('--user nobody --yes --wait 120', { ...env, VANTAGE_ROOT: other, VANTAGE_TOKEN: unknown });
    t.equal(res.code, 1, res.stderr);
    t.match(res.stderr, /the agent stopped before it enrolled/);
    t.match(res.stderr, /the agent's last log lines/);
    t.match(res.stderr, /enrollment token/i, 'the agent\'s own reason is in the output');
    t.notMatch(res.stderr, /did not enroll within/, 'without waiting out --wait');
  });

  await t.test('re-running upgrades in place without re-enrolling', { skip: !nodeId && 'first install failed' }, async (t) => {
    const second = await buildBundle({ out_dir: dist, version: `${firstVersion}-upgrade.1` });
    const res = await install('--yes --wait 180');
    t.equal(res.code, 0, `install.sh exit 0\n${res.stderr}`);
    t.equal(res.stdout.match(NODE_ID)?.[0], nodeId, 'same node id');
    t.match(res.stderr, new RegExp(`upgraded ${firstVersion} -> ${second.version}`));
    t.equal(symlinkTarget(join(prefix, 'current')), `releases/${second.version}`);
    t.ok(existsSync(join(prefix, 'releases', firstVersion)), 'previous release kept for rollback');
    t.match(readFileSync(join(root, 'systemctl.log'), 'utf8'), new RegExp(`^restart ${UNIT}$`, 'm'));
    t.not(Number(readFileSync(pidFile, 'utf8')), firstPid, 'agent restarted');
    t.match(JSON.parse(readFileSync(confFile, 'utf8')), { state_dir: stateDir, name: 'edge-ns-1' }, 'config kept');
    await waitOnline(nodeId);
    t.equal((await nodes()).length, 1, 'still one node: no second enrollment');
  });

  await t.test('--uninstall removes it all', async (t) => {
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0;
    const res = await install('--uninstall --yes');
    t.equal(res.code, 0, res.stderr);
    for (const path of [prefix, confFile, stateDir, unitFile]) t.notOk(existsSync(path), `${path} removed`);
    t.match(readFileSync(join(root, 'systemctl.log'), 'utf8'), new RegExp(`^disable --now ${UNIT}$`, 'm'));
    if (pid) t.notOk(existsSync(`/proc/${pid}`), 'agent stopped');
  });

  await t.test('without systemd it says so, prints the command and exits 3 (0 with --no-start); --token-file works', async (t) => {
    const bare = fakeRoot(t, false);
    const tokenFile = join(bare, 'token');
    writeFileSync(tokenFile, 'ent_notconsumed\n', { mode: 0o600 });
    const command = /^ {2}setpriv --reuid=nobody .*--ambient-caps=\+net_raw -- \S+\/node \S+\/current\/node-agent\.mjs run --config \S+agent\.json$/m;
    const res = await install(`--token-file ${tokenFile} --user nobody --yes`, { ...env, VANTAGE_ROOT: bare });
    t.equal(res.code, 3, `nothing runs the agent: not a success\n${res.stderr}`);
    t.match(res.stderr, /systemd is not running/);
    t.match(res.stderr, /installed but not running/);
    t.match(res.stderr, /--no-start to install only/);
    t.match(res.stdout, command);
    t.notOk(existsSync(join(bare, 'etc', 'systemd', 'system', UNIT)), 'no unit written');
    t.ok(symlinkTarget(join(bare, 'opt', 'vantage-agent', 'current')), 'agent installed');
    t.match(JSON.parse(readFileSync(join(bare, 'etc', 'vantage', 'agent.json'), 'utf8')), { token: 'ent_notconsumed' }, 'the token read from the file, kept until the agent enrolls (it removes it then)');
    t.match(res.stderr, /removes the spent token/);

    const only = await install('--no-start --user nobody --yes', { ...env, VANTAGE_ROOT: bare });
    t.equal(only.code, 0, `--no-start: an install only is what was asked\n${only.stderr}`);
    t.match(only.stdout, command, 'the same command');
    t.notMatch(only.stderr, /--foreground to run it now/);
  });
});

/** This process's environment without the test runner's hooks (NODE_OPTIONS loaders, TAP_*). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !/^_?TAP/i.test(k)));
}

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

function symlinkTarget(path: string): string | null {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ? readlinkSync(path) : null;
}
