import t from 'tap';
import { ClockOffset } from '../assignments/clock.js';
import { quietLog } from '../connection/test-support/helpers.js';
import { Outbox } from '../outbox/outbox.js';
import { tcpResult } from '../outbox/test-results.js';
import { Secret } from '../secret.js';
import { openStateDb } from '../state/db.js';
import { AgentMetrics } from './agent-metrics.js';
import { startMetricsListener } from './listener.js';

function sample(text: string, line: string): number | null {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? null : Number(found.slice(line.length + 1));
}

t.test('the listener serves the outbox, checks and clock at /metrics behind its token', async (t) => {
  const db = openStateDb(`${t.testdir()}/state`);
  t.teardown(() => db.close());
  const outbox = new Outbox(db, { max_results: 100, max_age_s: 3600 });
  const clock = new ClockOffset();
  const metrics = new AgentMetrics({ outbox, clock_offset_ms: () => clock.offset_ms, connected: () => false });
  const listener = await startMetricsListener({ metrics, host: '127.0.0.1', port: 0, token: new Secret('agent-metrics-token-01'), log: quietLog });
  t.teardown(() => listener.close());
  const base = `http://127.0.0.1:${listener.address.port}`;

  const ok = tcpResult();
  const failed = tcpResult({ success: false, error: 'refused', error_class: 'refused' } as never);
  for (const r of [ok, failed]) {
    outbox.add(r);
    metrics.produced(r);
  }
  metrics.welcomed();
  metrics.disconnected();
  metrics.welcomed();

  t.equal((await fetch(`${base}/metrics`)).status, 401, 'no token');
  t.equal((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer agent-metrics-token-02' } })).status, 401, 'another token');
  t.equal((await fetch(`${base}/other`)).status, 404);
  t.equal((await fetch(`${base}/metrics`, { method: 'POST', headers: { authorization: 'Bearer agent-metrics-token-01' } })).status, 405);
  const res = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer agent-metrics-token-01' } });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  t.equal(sample(text, 'vantage_agent_outbox_depth'), 2);
  t.ok(sample(text, 'vantage_agent_outbox_oldest_age_seconds')! >= 0);
  t.equal(sample(text, 'vantage_agent_checks_total{kind="task",type="tcp",outcome="success"}'), 1);
  t.equal(sample(text, 'vantage_agent_checks_total{kind="task",type="tcp",outcome="refused"}'), 1);
  t.equal(sample(text, 'vantage_agent_connections_total'), 2);
  t.equal(sample(text, 'vantage_agent_reconnects_total'), 1);
  t.equal(sample(text, 'vantage_agent_disconnects_total'), 1);
  t.equal(sample(text, 'vantage_agent_connected'), 0);
  t.ok(Number.isNaN(sample(text, 'vantage_agent_clock_offset_seconds')), 'NaN until measured');
  clock.noteRtt(10);
  clock.noteServerTime(1_000_000, 1_000_255);
  const after = await (await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer agent-metrics-token-01' } })).text();
  t.equal(sample(after, 'vantage_agent_clock_offset_seconds'), 0.25, 'node clock 250 ms ahead');
  outbox.ack([ok.result_id, failed.result_id]);
  t.equal(sample(await (await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer agent-metrics-token-01' } })).text(), 'vantage_agent_outbox_depth'), 0);
});

t.test('an address that cannot be bound rejects (the agent runs on without metrics)', async (t) => {
  const db = openStateDb(`${t.testdir()}/state`);
  t.teardown(() => db.close());
  const metrics = new AgentMetrics({ outbox: new Outbox(db, { max_results: 100, max_age_s: 3600 }), clock_offset_ms: () => null, connected: () => true });
  const first = await startMetricsListener({ metrics, host: '127.0.0.1', port: 0, log: quietLog });
  t.teardown(() => first.close());
  await t.rejects(startMetricsListener({ metrics, host: '127.0.0.1', port: first.address.port, log: quietLog }), { code: 'EADDRINUSE' });
});
