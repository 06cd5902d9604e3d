import t from 'tap';
import { PROTOCOL_VERSION, type NodeMessage, type ServerMessage } from '@vantage/shared-protocol';
import { Secret } from '../secret.js';
import { Connection } from './client.js';
import { ControlPlaneStub } from './test-support/control-plane-stub.js';
import { eventually, quietLog } from './test-support/helpers.js';

/*
 * A control-plane message nested deeper than LIMITS.ws_message_depth_max is dropped on the node
 * like any invalid message (shared-protocol parseServerMessage counts the depth before parsing):
 * the link and the agent stay up and the next message is handled.
 */

t.test('a deeply nested control-plane message costs only itself', async (t) => {
  const stub = new ControlPlaneStub();
  await stub.listen();
  t.teardown(() => stub.kill());
  const token = stub.issueToken();
  const got: ServerMessage[] = [];
  const invalid: string[] = [];
  let welcomes = 0;
  const conn = new Connection({
    control_plane_url: stub.url,
    greeting: () => ({ secret: new Secret(token), first: { type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: 'test' } as NodeMessage }),
    onWelcome: () => { welcomes++; },
    onMessage: (m) => { got.push(m); },
    onInvalid: (_json, error) => { invalid.push(error); },
    onDown: () => {},
    log: quietLog,
  });
  const running = conn.run();
  t.teardown(async () => { await conn.stop(); await running.catch(() => {}); });
  await eventually(() => welcomes === 1 && stub.sockets.size === 1, 'welcome');
  const [socket] = [...stub.sockets];

  // 100,000 levels in a payload_template (200 KB, under the 1 MiB bound): zod's recursive
  // validation of it exhausts the stack.
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const config = `{"method":"POST","payload_template":{"a":${deep}}}`;
  socket!.ws.send(`{"type":"assignments.full","version":7,"assignments":[{"monitor_id":"m_01jd3k6w9z4q8r2t7v5x1y3b6c","interval_s":60,"check":{"type":"llm_endpoint","target":"https://198.18.1.10/","config":${config}}}]}`);
  socket!.ws.send(JSON.stringify({ type: 'assignments.full', version: 8, assignments: [] }));
  await eventually(() => got.some((m) => m.type === 'assignments.full'), 'the next message handled');
  t.same(got.filter((m) => m.type === 'assignments.full').map((m) => (m as { version: number }).version), [8], 'the deep one was dropped');
  t.match(invalid, [/^message assignments\[0\]\.check\.config\.payload_template\.a(\[0\])+: nested deeper than 512 levels/], 'reported as invalid, naming where');
  t.equal(welcomes, 1, 'the link stayed up');
});
