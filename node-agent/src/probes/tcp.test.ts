import net from 'node:net';
import t from 'tap';
import pino from 'pino';
import { tcpOutputSchema, tcpParamsSchema, type TcpParams } from '@vantage/shared-protocol';
import { ProbeInputError } from './input-error.js';
import { tcpProbe } from './tcp.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { createNetns } from './test-support/netns.js';
import type { ProbeOutcome } from './types.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const params = (p: Partial<TcpParams> = {}): TcpParams => tcpParamsSchema.parse(p);

async function run(target: string, p: Partial<TcpParams> = {}, policy: TargetPolicy = ALLOW, signal = new AbortController().signal) {
  const outcome = await tcpProbe.run(target, params(p), { signal, policy, log });
  tcpOutputSchema.parse(outcome.output);
  return outcome;
}

async function listen(host = '127.0.0.1'): Promise<net.Server> {
  const s = net.createServer((c) => c.destroy());
  await new Promise<void>((resolve) => s.listen(0, host, () => resolve()));
  return s;
}

t.test('tcp on loopback', async (t) => {
  const open = await listen();
  t.teardown(() => open.close());
  const port = (open.address() as net.AddressInfo).port;

  t.test('an open port connects', async (t) => {
    const r = await run(`127.0.0.1:${port}`);
    t.equal(r.success, true);
    t.equal(r.output.state, 'open');
    t.equal(r.output.port, port);
    t.equal(r.output.resolved_address, '127.0.0.1');
    t.type(r.output.connect_ms, 'number');
  });

  t.test('params.port is used when the target has none', async (t) => {
    const r = await run('localhost', { port, ip_version: 'v4' });
    t.equal(r.output.state, 'open');
  });

  t.test('a closed port is refused', async (t) => {
    const closed = await listen();
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await run(`127.0.0.1:${closedPort}`);
    t.equal(r.success, false);
    t.equal(r.error_class, 'refused');
    t.equal(r.output.state, 'refused');
    t.equal(r.output.connect_ms, null);
  });

  t.test('IPv6 loopback', async (t) => {
    const v6 = await listen('::1');
    t.teardown(() => v6.close());
    const r = await run(`[::1]:${(v6.address() as net.AddressInfo).port}`, { ip_version: 'v6' });
    t.equal(r.output.state, 'open');
    t.equal(r.output.resolved_address, '::1');
  });

  t.test('the default policy refuses loopback', async (t) => {
    const r = await run(`127.0.0.1:${port}`, {}, DEFAULT_POLICY);
    t.equal(r.success, false);
    t.equal(r.error_class, 'blocked');
    t.equal(r.output.state, 'error');
    t.equal(r.output.resolved_address, null);
  });

  t.test('no port at all is a ProbeInputError', async (t) => {
    await t.rejects(run('127.0.0.1'), ProbeInputError);
    await t.rejects(run('bad host:1'), ProbeInputError);
  });
});

t.test('tcp in a namespace: black hole and unreachable', async (t) => {
  const ns = await createNetns('btcp');
  t.teardown(() => ns.remove());
  // v0 has 198.18.77.1/24; 198.18.77.2 is pinned to a MAC nobody has, so its SYNs vanish.
  await ns.ip('link', 'add', 'v0', 'type', 'veth', 'peer', 'name', 'v1');
  await ns.ip('addr', 'add', '198.18.77.1/24', 'dev', 'v0');
  await ns.ip('link', 'set', 'v0', 'up');
  await ns.ip('link', 'set', 'v1', 'up');
  await ns.ip('neigh', 'add', '198.18.77.2', 'lladdr', '02:00:00:00:00:99', 'dev', 'v0', 'nud', 'permanent');
  await ns.ip('route', 'add', 'unreachable', '198.18.78.0/24');
  const policy: TargetPolicy = { allow_private: false, allow_cidrs: ['198.18.0.0/15'] };
  const probe = (target: string, timeout_ms = 1000) => ns.probe<ProbeOutcome<'tcp'>>({ type: 'tcp', target, params: { timeout_ms }, policy });

  const [hole, unreachableRoute, noRoute] = await Promise.all([probe('198.18.77.2:80'), probe('198.18.78.5:80'), probe('198.18.79.5:80')]);
  t.match(hole, { success: false, error_class: 'timeout', output: { state: 'timeout', connect_ms: null, resolved_address: '198.18.77.2' } });
  t.match(unreachableRoute, { success: false, error_class: 'unreachable', output: { state: 'unreachable' } });
  t.match(unreachableRoute.error, /EHOSTUNREACH/);
  t.match(noRoute, { success: false, error_class: 'unreachable', output: { state: 'unreachable' } });
  t.match(noRoute.error, /ENETUNREACH/);
});

t.test('an aborted signal means no connection attempt', async (t) => {
  const server = await listen();
  t.teardown(() => server.close());
  let accepted = 0;
  server.on('connection', () => accepted++);
  const ctrl = new AbortController();
  ctrl.abort();
  const r = await run(`127.0.0.1:${(server.address() as net.AddressInfo).port}`, {}, ALLOW, ctrl.signal);
  t.equal(r.success, false);
  t.equal(r.output.state, 'timeout');
  t.equal(accepted, 0);
});
