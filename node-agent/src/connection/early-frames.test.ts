/**
 * Frames a control plane sends before `welcome` (one of protocol 3 that registered the link while
 * the hello was being written): held and handled right after `welcome`, in order, never lost.
 */
import t from 'tap';
import { newId, type ServerMessage } from '@vantage/shared-protocol';
import { ClockOffset } from '../assignments/clock.js';
import { Connection } from './client.js';
import { ControlPlaneStub } from './test-support/control-plane-stub.js';
import { eventually, quietLog, stubGreeting } from './test-support/helpers.js';

const taskRun = (task_id: string) => ({
  type: 'task.run' as const, task_id, timeout_ms: 5000, policy: { allow_private: false, allow_cidrs: [] },
  check: { type: 'tcp' as const, target: '198.18.0.10:443', params: {} },
});

t.test('a task.run and a heartbeat before welcome reach the agent after welcome, in order', async (t) => {
  const [first, second] = [newId('probe_task'), newId('probe_task')];
  const early = [taskRun(first), { type: 'heartbeat' as const, sent_at: Date.now() }, taskRun(second)];
  const stub = new ControlPlaneStub({ before_welcome: early });
  await stub.listen();
  t.teardown(() => stub.kill());
  const agent = stubGreeting(stub.issueToken());
  const seen: string[] = [];
  const clock = new ClockOffset();
  const server_times: number[] = [];
  const noteServerTime = clock.noteServerTime.bind(clock);
  clock.noteServerTime = (sent_at: number) => { server_times.push(sent_at); noteServerTime(sent_at); };
  const conn = new Connection({
    control_plane_url: stub.url,
    greeting: agent.greeting,
    onWelcome: (w) => {
      seen.push('welcome');
      agent.remember(w);
    },
    onMessage: (m: ServerMessage) => seen.push(m.type === 'task.run' ? m.task_id : m.type),
    onDown: () => {},
    log: quietLog,
    clock,
    backoff: { min_ms: 50, max_ms: 100 },
  });
  const running = conn.run();
  t.teardown(async () => { await conn.stop(); await running.catch(() => {}); });
  await eventually(agent.enrolled, 'enrolled', 30_000);
  // Enrollment sends nothing early; the hello of the next link does.
  for (const s of stub.sockets) s.ws.close(4008, 'server shutdown');
  await eventually(() => seen.filter((x) => x === 'welcome').length === 2 && seen.includes(second), 'welcome of the hello and the early frames', 30_000);
  const after = seen.slice(seen.lastIndexOf('welcome'));
  t.same(after.slice(0, 3), ['welcome', first, second], 'held task.runs follow welcome in the order sent');
  t.ok(server_times.includes((early[1] as { sent_at: number }).sent_at), 'the early heartbeat was handled (its server time noted)');
});
