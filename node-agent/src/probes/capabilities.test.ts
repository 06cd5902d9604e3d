import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import type { NodeMessage } from '@vantage/shared-protocol';
import { ControlPlaneStub } from '../connection/test-support/control-plane-stub.js';
import { detectCapabilities } from './capabilities.js';

const BIN = fileURLToPath(new URL('../../bin/node-agent.mjs', import.meta.url));

t.test('without a raw ICMP socket, ping, traceroute and mtr are left out with the reason', async (t) => {
  const denied = detectCapabilities(() => { throw new Error('Operation not permitted'); });
  t.same(denied.capabilities, ['http', 'dns', 'tcp', 'smtp', 'ntp', 'headers', 'speedtest', 'ssl']);
  t.same(denied.missing.map((m) => m.type), ['ping', 'traceroute', 'mtr']);
  t.match(denied.missing[0]!.reason, /Operation not permitted.*root or CAP_NET_RAW/);
  let closed = false;
  const granted = detectCapabilities(() => ({ close: () => { closed = true; } }));
  t.same(granted, { capabilities: ['http', 'ping', 'dns', 'tcp', 'traceroute', 'mtr', 'smtp', 'ntp', 'headers', 'speedtest', 'ssl'], missing: [] });
  t.ok(closed, 'the trial socket is closed');
});

/** Start the real agent CLI (optionally through `wrap`, e.g. setpriv) and return the capabilities of its enroll message. */
async function advertised(t: Test, wrap: string[]): Promise<string[]> {
  const cp = new ControlPlaneStub();
  await cp.listen();
  t.teardown(() => cp.kill());
  const args = [process.execPath, BIN, 'run', '--state-dir', path.join(t.testdir(), 'state'), '--control-plane-url', cp.url, '--log-level', 'warn'];
  const [cmd, ...rest] = [...wrap, ...args];
  const child = spawn(cmd!, rest, { env: { PATH: process.env.PATH, VANTAGE_AGENT_TOKEN: cp.issueToken() }, stdio: 'ignore' });
  t.teardown(() => { child.kill('SIGKILL'); });
  const enroll = await cp.waitFor<Extract<NodeMessage, { type: 'enroll' }>>((m) => m.type === 'enroll', 60_000);
  // browser depends on Chromium being installed (browser/advertise.ts has its own test).
  return enroll.capabilities.filter((c) => c !== 'browser');
}

// We run as root here (the test network needs it); setpriv drops CAP_NET_RAW for one child, which
// is what an agent run as an ordinary user without the capability has.
t.test('an agent without CAP_NET_RAW advertises only what it can run', async (t) => {
  t.same(await advertised(t, ['setpriv', '--bounding-set=-net_raw', '--inh-caps=-net_raw']), ['http', 'dns', 'tcp', 'smtp', 'ntp', 'headers', 'speedtest', 'ssl']);
  t.same(await advertised(t, []), ['http', 'ping', 'dns', 'tcp', 'traceroute', 'mtr', 'smtp', 'ntp', 'headers', 'speedtest', 'ssl'], 'with it, every type');
});
