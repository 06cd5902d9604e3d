import t from 'tap';
import pino from 'pino';
import { testDatabase } from '../test-support/db.js';
import { alertEnginePass } from './engine.js';
import { at, seedWorld } from './engine-fixtures.js';

/*
 * A policy template stored before today's save-time bounds (docs/api/alerting.md "Templates"),
 * rendered by the alert engine: the page still goes out with the default templates, the body
 * and the notification say which template was not used and why, and the engine logs it with
 * the policy and channel ids. One bad template never holds up the pass.
 */

t.test('stored templates outside the bounds: the default is sent, the reason logged and shown', async (t) => {
  const { sql } = await testDatabase(t);
  const w = await seedWorld(sql);
  const nested = `${'{{range .Nodes}}'.repeat(40)}{{.Name}}${'{{end}}'.repeat(40)}`;
  await sql`UPDATE alert_policies SET title_template = '{{.Monitor.Nope}}', body_template = ${nested} WHERE id = ${w.policy_id}`;
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  await w.round(0, 'down');
  const pass = await alertEnginePass({ ...w.deps, log }, at(0));
  t.equal(pass.steps, 1, 'the page was sent');
  const [row] = await sql`SELECT payload FROM deliveries WHERE user_id = ${w.user_id}`;
  const n = row!.payload as { title: string; body: string; template_fault?: string };
  t.match(n.title, /^\[down\] /, 'the default title');
  t.match(n.body, /is down\.\n/, 'the default body');
  t.match(n.body, /This alert policy's title_template was not used: unknown field \.Monitor\.Nope/);
  t.match(n.body, /This alert policy's body_template was not used: range blocks nested deeper than 2/);
  t.match(n.template_fault, /^title_template: unknown field .*; body_template: range blocks nested deeper than 2$/);
  t.match(lines, [{ level: 40, policy_id: w.policy_id, channel_id: w.first, fault: n.template_fault, msg: /template not used/ }]);
});
