import t, { type Test } from 'tap';
import { newId, type NodeMessage } from '@vantage/shared-protocol';
import { createAgent, type AgentDeps } from '../agent.js';
import { ControlPlaneStub } from '../connection/test-support/control-plane-stub.js';
import { heldChecks, quietLog, testConfig } from '../connection/test-support/helpers.js';
import { openStateDb, type StateDb } from '../state/db.js';
import type { RunCheckFn } from './check-job.js';

// A control plane may send the same task.run again (its re-send of unacked tasks after a
// reconnect can meet the live dispatch of the same task): the agent measures each task once.

const tcpRun = (task_id: string, target: string) => ({ type: 'task.run' as const, task_id, timeout_ms: 10_000, check: { type: 'tcp' as const, target, params: { port: 443, timeout_ms: 5000 } } });

async function stub(t: Test, opts: ConstructorParameters<typeof ControlPlaneStub>[0] = {}): Promise<ControlPlaneStub> {
  const s = new ControlPlaneStub(opts);
  await s.listen();
  t.teardown(() => s.kill());
  return s;
}

/** The test check engine, counting runs per target. */
function countingChecks() {
  const checks = heldChecks();
  const runs = new Map<string, number>();
  const runCheck: RunCheckFn = (check, opts) => {
    runs.set(check.target, (runs.get(check.target) ?? 0) + 1);
    return checks.runCheck(check, opts);
  };
  return { runCheck, runs };
}

function startAgent(t: Test, db: StateDb, runCheck: RunCheckFn, config: Record<string, unknown>) {
  const deps: AgentDeps = {
    db, log: quietLog, runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 },
    config: testConfig({ concurrency: 1, ...config }),
  };
  const agent = createAgent(deps);
  void agent.start();
  t.teardown(() => agent.stop(0));
  return agent;
}

const ackOf = (task_id: string) => (m: NodeMessage) => m.type === 'task.ack' && m.task_id === task_id;

t.test('a task.run sent again after the task finished is acked and not run again', async (t) => {
  const cp = await stub(t);
  const checks = countingChecks();
  const db = openStateDb(t.testdir());
  t.teardown(() => db.close());
  startAgent(t, db, checks.runCheck, { control_plane_url: cp.url, token: cp.issueToken() });
  await cp.waitFor((m) => m.type === 'outbox.stats');
  const task = newId('probe_task');
  cp.broadcast(tcpRun(task, 'once-a'));
  await cp.until(() => [...cp.results.values()].some((r) => r.task_id === task));

  const again = cp.waitFor<Extract<NodeMessage, { type: 'task.ack' }>>(ackOf(task));
  cp.broadcast(tcpRun(task, 'once-a'));
  t.match(await again, { accepted: true }, 'the repeat is acked (the control plane marks it running, nothing more)');
  // One job at a time, in order: a second run of the task would finish before this one.
  const after = newId('probe_task');
  cp.broadcast(tcpRun(after, 'once-b'));
  await cp.until(() => [...cp.results.values()].some((r) => r.task_id === after));
  t.equal(checks.runs.get('once-a'), 1, 'measured once');
  t.equal([...cp.results.values()].filter((r) => r.task_id === task).length, 1, 'one result for the task');
});

t.test('after a restart, a task.run for a task whose result waits in the outbox is not run again', async (t) => {
  const cp = await stub(t, { auto_ack: false });
  const checks = countingChecks();
  const dir = t.testdir();
  const db = openStateDb(dir);
  t.teardown(() => db.close());
  const first = startAgent(t, db, checks.runCheck, { control_plane_url: cp.url, token: cp.issueToken() });
  await cp.waitFor((m) => m.type === 'outbox.stats');
  const task = newId('probe_task');
  cp.broadcast(tcpRun(task, 'once-c'));
  await cp.until(() => [...cp.results.values()].some((r) => r.task_id === task));
  t.equal(first.outbox.stats().pending, 1, 'sent, not acked: still in the outbox');
  await first.stop(0);

  const hello = cp.waitFor<Extract<NodeMessage, { type: 'hello' }>>((m) => m.type === 'hello');
  startAgent(t, db, checks.runCheck, { control_plane_url: cp.url });
  t.same((await hello).tasks_held, [task], 'the restarted agent says it holds the task (its result)');
  const again = cp.waitFor<Extract<NodeMessage, { type: 'task.ack' }>>(ackOf(task));
  cp.broadcast(tcpRun(task, 'once-c'));
  t.match(await again, { accepted: true });
  const after = newId('probe_task');
  cp.broadcast(tcpRun(after, 'once-d'));
  await cp.until(() => [...cp.results.values()].some((r) => r.task_id === after));
  t.equal(checks.runs.get('once-c'), 1, 'measured once across the restart');
  t.equal([...cp.results.values()].filter((r) => r.task_id === task).length, 1, 'the result from before the restart is the only one');
});
