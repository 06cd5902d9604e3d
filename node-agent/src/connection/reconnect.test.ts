import t from 'tap';
import { CLOSE_CODES } from '@vantage/shared-protocol';
import { DEFAULT_RECONNECT, reconnectDelay } from './backoff.js';
import { Connection } from './client.js';
import { ControlPlaneStub } from './test-support/control-plane-stub.js';
import { quietLog, stubGreeting } from './test-support/helpers.js';

t.test('reconnect delay: prompt after an established link, soon while the outage is young, then exponential', async (t) => {
  const table: Array<[number, number | null, number, number]> = [
    // failures, down_ms, random, delay
    [0, 0, 0, 100], [0, 0, 0.999999, 1000], // first retry after a link that was up: 0.1-1 s
    [1, 5_000, 0, 1000], [5, 50_000, 0.999999, 2500], // an outage younger than 60 s: 1-2.5 s
    [1, 61_000, 0, 2000], [4, 61_000, 0.999999, 60_000], // beyond: the long backoff
    [0, null, 0, 2000], [3, null, 0.999999, 32_000], // no link was up (start, flapping): the long backoff
  ];
  for (const [failures, down_ms, random, want] of table) {
    t.equal(reconnectDelay(failures, down_ms, DEFAULT_RECONNECT, random), want, `failures ${failures}, down ${down_ms} ms, random ${random}`);
  }
});

/** A Connection to `stub` that enrolls once, then says hello with its credential; counts welcomes. */
function agentConnection(stub: ControlPlaneStub, backoff_min_ms: number) {
  const agent = stubGreeting(stub.issueToken());
  const state = { welcomes: 0 };
  const conn = new Connection({
    control_plane_url: stub.url,
    greeting: agent.greeting,
    onWelcome: (w) => {
      agent.remember(w);
      state.welcomes++;
    },
    onMessage: () => {},
    onDown: () => {},
    log: quietLog,
    // A long backoff: only the prompt reconnect policy can bring the link back within the test's bounds.
    backoff: { min_ms: backoff_min_ms, max_ms: backoff_min_ms * 2 },
  });
  return { conn, state };
}

async function until(cond: () => boolean, what: string, timeout_ms: number): Promise<void> {
  const deadline = Date.now() + timeout_ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('a server shutdown (4008) is followed by a prompt reconnect, not the long backoff', async (t) => {
  const stub = new ControlPlaneStub();
  await stub.listen();
  t.teardown(() => stub.kill());
  const { conn, state } = agentConnection(stub, 60_000);
  const running = conn.run();
  t.teardown(async () => { await conn.stop(); await running.catch(() => {}); });
  await until(() => state.welcomes === 1, 'first welcome', 20_000);
  stub.closeAll(CLOSE_CODES.server_shutdown.code, CLOSE_CODES.server_shutdown.reason);
  await until(() => state.welcomes === 2, 'welcome after the restart close', 20_000);
  t.pass('reconnected well before the 60 s backoff');
});

t.test('a reset of an established link is followed by a prompt reconnect', async (t) => {
  const stub = new ControlPlaneStub();
  await stub.listen();
  t.teardown(() => stub.kill());
  const { conn, state } = agentConnection(stub, 60_000);
  const running = conn.run();
  t.teardown(async () => { await conn.stop(); await running.catch(() => {}); });
  await until(() => state.welcomes === 1, 'first welcome', 20_000);
  // Cut without a close frame (a killed control plane): the agent sees 1006. A link that short
  // counts as established only after a restart close code, so wait out the stable-link time first.
  await new Promise((r) => setTimeout(r, 10_500));
  for (const s of stub.sockets) s.ws.terminate();
  await until(() => state.welcomes === 2, 'welcome after the reset', 20_000);
  t.pass('reconnected well before the 60 s backoff');
});
