import t from 'tap';
import { roundAt } from '../checks/test-support.js';
import { eventually, type Received } from '../delivery/test-support.js';
import { startAlertPipeline } from './pipeline-fixtures.js';

/*
 * A flapping target end to end: nodes' results handed to the result sink, the verdict job moving
 * monitor state, the alert engine and the delivery worker posting to a real receiver on loopback.
 * The flap rule is made through the API; a second monitor flapping the same way without the rule
 * shows what it holds back.
 */

const body = (r: Received) => JSON.parse(r.body) as { type: string; data: { monitor: { id: string } | null } };
const triggers = (rx: Received[], monitor_id: string) => rx.filter((r) => { const b = body(r); return b.type === 'alert.trigger' && b.data.monitor?.id === monitor_id; });

t.test('a flapping target produces one page; the same flap without the rule pages every outage', async (t) => {
  const p = await startAlertPipeline(t, { config: { checks_decide_interval_ms: 100, checks_round_grace_ms: 600_000, delivery_poll_interval_ms: 100 }, engine_interval_ms: 200 });
  const ruled = await p.monitor({ nodes: 1, name: 'flapping with a rule' });
  const plain = await p.monitor({ nodes: 1, name: 'flapping without' });
  await p.api('POST', '/v1/alert-noise-rules', { name: 'flaps', kind: 'flap', flap_changes: 3, flap_window_s: 900, monitor_ids: [ruled.monitor_id] });

  const open = async (monitor_id: string) => p.ctx.sql`SELECT id, next_due_at, suppressed, metadata FROM alert_events WHERE monitor_id = ${monitor_id} AND status <> 'resolved'`;
  // Six rounds a minute apart: down, up, down, up, down, up (six state changes within 6 minutes).
  for (let k = -5; k <= 0; k++) {
    const down = (k + 5) % 2 === 0;
    for (const m of [ruled, plain]) {
      await p.report(m, roundAt(m, k), down ? 1 : 0);
      // Down: the event opened and its step ran (paged or held back). Up: it resolved.
      await eventually(`round ${k} of ${m.monitor_id} through the engine`, async () => {
        const rows = await open(m.monitor_id);
        return (down ? rows.length === 1 && rows[0]!.next_due_at === null : rows.length === 0) || null;
      }, 60_000);
    }
  }
  await eventually('the plain monitor paged three times', () => triggers(p.receiver.received, plain.monitor_id).length === 3 || null, 60_000);
  const [{ n }] = await p.ctx.sql`SELECT count(*)::int AS n FROM deliveries WHERE message_id LIKE ANY(
    SELECT id || ':%:firing' FROM alert_events WHERE monitor_id = ${ruled.monitor_id})` as unknown as [{ n: number }];
  t.equal(n, 1, 'one page queued for the flapping monitor with the rule');
  await eventually('its page delivered', () => triggers(p.receiver.received, ruled.monitor_id).length === 1 || null, 60_000);
  t.equal(triggers(p.receiver.received, ruled.monitor_id).length, 1, 'exactly one notification received');
  const held = await p.ctx.sql`SELECT suppressed, metadata FROM alert_events WHERE monitor_id = ${ruled.monitor_id} ORDER BY started_at`;
  t.match(held, [{ suppressed: null }, { suppressed: 'flapping', metadata: { flapping: true } }, { suppressed: 'flapping', metadata: { flapping: true } }]);
  const shown = await p.api('GET', `/v1/alert-events?monitor_id=${ruled.monitor_id}`);
  t.ok(shown.items.some((e: { suppressed: string; metadata: { flapping?: boolean } }) => e.suppressed === 'flapping' && e.metadata.flapping === true), 'the flapping mark is in the API');
  // The monitor itself carries the mark (docs/api/monitors.md): since the flap's first counted change.
  const [first] = await p.ctx.sql<{ changed_at: Date }[]>`SELECT min(changed_at) AS changed_at FROM monitor_state_changes WHERE monitor_id = ${ruled.monitor_id} AND superseded_at IS NULL`;
  t.match(await p.api('GET', `/v1/monitors/${ruled.monitor_id}`), { flapping: true, flapping_since: first!.changed_at.toISOString() }, 'GET /v1/monitors/{id} says it flaps');
  t.match(await p.api('GET', `/v1/monitors/${plain.monitor_id}`), { flapping: false, flapping_since: null }, 'without a flap rule: never flapping');
  const listed = (await p.api('GET', '/v1/monitors')).items as Array<{ id: string; flapping: boolean; flapping_since: string | null }>;
  t.same(listed.filter((m) => m.flapping).map((m) => [m.id, m.flapping_since]), [[ruled.monitor_id, first!.changed_at.toISOString()]], 'and so does the list, with the same start');
});
