import t from 'tap';
import { newId, type AssignmentInput, type NodeMessage } from '@vantage/shared-protocol';
import { createAgent } from '../agent.js';
import { ControlPlaneStub } from '../connection/test-support/control-plane-stub.js';
import { heldChecks, testConfig } from '../connection/test-support/helpers.js';
import { createLogger } from '../log.js';
import { openStateDb } from '../state/db.js';

/*
 * A bad assignment costs only itself (node-protocol messages.ts splitAssignments): an assignment
 * this agent's schemas refuse (headers an earlier version stored, a match() JSONPath, a check type
 * it does not know) is logged with its monitor id and field path and left out; the node still
 * stores, runs and acks the rest of the message.
 */

type Ack = Extract<NodeMessage, { type: 'assignments.ack' }>;
/** A round phase whose next round starts a second from now. */
const soonPhaseMs = (interval_s: number) => (Date.now() + 1000) % (interval_s * 1000);
const tcp = (monitor_id: string): AssignmentInput => ({ monitor_id, interval_s: 60, phase_ms: soonPhaseMs(60), check: { type: 'tcp', target: '198.18.1.10:443', config: { port: 443 } } });

t.test('the node keeps the valid assignments of a message and drops only the refused ones', async (t) => {
  const cp = new ControlPlaneStub();
  await cp.listen();
  t.teardown(() => cp.kill());
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger('info', { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
  const db = openStateDb(t.testdir());
  t.teardown(() => db.close());

  const [good, badHeader, badPath, unknownType] = [newId('monitor'), newId('monitor'), newId('monitor'), newId('monitor')];
  // Set as the node connects, so the valid one's first round is soon after it arrives.
  cp.once('connection', () => {
    cp.assignments = {
      version: 3,
      assignments: [
        tcp(good),
        { monitor_id: badHeader, interval_s: 60, check: { type: 'http', target: 'http://198.18.1.10/', config: { headers: { 'X Foo:': 'a\r\nInjected: 1' } } } },
        { monitor_id: badPath, interval_s: 60, check: { type: 'llm_endpoint', target: 'https://198.18.1.10/v1', config: { expected_fields: ["$[?match(@.a, 'x')]"] } } },
        { monitor_id: unknownType, interval_s: 60, check: { type: 'teleport', target: 'x', config: {} } } as unknown as AssignmentInput,
      ],
    };
  });
  const agent = createAgent({ db, log, runCheck: heldChecks().runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 }, config: testConfig({ control_plane_url: cp.url, token: cp.issueToken() }) });
  void agent.start();
  t.teardown(() => agent.stop(0));

  const ack = await cp.waitFor<Ack>((m) => m.type === 'assignments.ack', 20_000);
  t.equal(ack.version, 3, 'the full set is acked');
  t.same(agent.scheduler.monitor_ids, [good], 'the valid assignment is scheduled, the three refused ones are not');
  t.same(agent.assignments.list().map((a) => a.monitor_id), [good], 'and only it is stored');
  await cp.until(() => [...cp.results.values()].some((r) => r.monitor_id === good));
  t.pass('the valid assignment ran at its round');

  const refused = lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('assignment refused'));
  t.same(refused.map((l) => l.monitor_id), [badHeader, badPath, unknownType], 'each refused one is logged with its monitor id');
  t.match(refused[0], { level: 50, index: 1, version: 3, fields: [{ path: 'assignments[1].check.config.headers.X Foo:' }] }, 'naming the field');
  t.match(refused[1], { fields: [{ path: 'assignments[2].check.config.expected_fields[0]', message: /match\(\) is not supported/ }] });
  t.match(refused[2], { fields: [{ path: 'assignments[3].check.type' }] });

  // A delta whose new revision of `good` the node refuses drops it (it no longer runs a config the
  // control plane replaced) and still applies the rest.
  const next = newId('monitor');
  const applied = cp.waitFor<Ack>((m) => m.type === 'assignments.ack');
  cp.broadcast({
    type: 'assignments.delta', from_version: 3, version: 4, remove: [],
    upsert: [tcp(next), { monitor_id: good, interval_s: 60, check: { type: 'http', target: 'http://198.18.1.10/', config: { headers: { 'Bad Name': 'x' } } } }],
  });
  t.equal((await applied).version, 4, 'the delta is acked');
  t.same(agent.scheduler.monitor_ids, [next], 'the new one runs; the refused revision replaced the old one');
  t.equal(agent.assignments.version, 4);
});
