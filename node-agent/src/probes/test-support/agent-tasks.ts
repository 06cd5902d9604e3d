/*
 * Test helper: a real agent (createAgent + the real probe engine) connected to a control-plane
 * stub, sent `task.run` messages; resolves with the results it reported. For tests of how a node
 * confines each task to its requester's policy.
 */
import { newId, type CheckSpec, type ResultEnvelope, type TargetPolicy } from '@vantage/shared-protocol';
import { createAgent } from '../../agent.js';
import { ControlPlaneStub } from '../../connection/test-support/control-plane-stub.js';
import { quietLog, testConfig } from '../../connection/test-support/helpers.js';
import { openStateDb } from '../../state/db.js';
import { runCheck } from '../runner.js';

export interface AgentTask {
  /** The check as the control plane sends it (params are defaulted by the protocol schema). */
  check: { type: CheckSpec['type']; target: string; params: Record<string, unknown> };
  /** The requester policy sent in `task.run`; absent = left out of the message. */
  policy?: TargetPolicy;
}

/**
 * Start a stub control plane and an agent whose operator policy is `node_policy`, send every task,
 * wait for all their results (at most `timeout_ms`), stop both. Results come back in task order.
 */
export async function runAgentTasks(opts: { state_dir: string; node_policy: TargetPolicy; tasks: AgentTask[]; timeout_ms?: number }): Promise<ResultEnvelope[]> {
  const cp = new ControlPlaneStub();
  await cp.listen();
  const db = openStateDb(opts.state_dir);
  const agent = createAgent({
    db, log: quietLog, runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 }, capabilities: ['http', 'dns', 'tcp'],
    config: testConfig({ control_plane_url: cp.url, token: cp.issueToken(), ...opts.node_policy }),
  });
  const exit = agent.start();
  try {
    await cp.waitFor((m) => m.type === 'outbox.stats', 30_000);
    const ids = opts.tasks.map(() => newId('probe_task'));
    opts.tasks.forEach((task, i) => {
      cp.broadcast({ type: 'task.run', task_id: ids[i]!, timeout_ms: 20_000, check: task.check as never, ...(task.policy ? { policy: task.policy } : {}) });
    });
    const byTask = () => new Map([...cp.results.values()].map((r) => [r.task_id, r]));
    await cp.until(() => ids.every((id) => byTask().has(id)), opts.timeout_ms ?? 60_000);
    const got = byTask();
    return ids.map((id) => got.get(id)!);
  } finally {
    await agent.stop(0);
    await exit;
    db.close();
    await cp.kill();
  }
}
