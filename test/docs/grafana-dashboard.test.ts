import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../control-plane/src/config/index.js';
import { createLogger } from '../../control-plane/src/log.js';
import { createMetrics } from '../../control-plane/src/metrics/registry.js';
import { registerScrapeGauges } from '../../control-plane/src/metrics/scrape-gauges.js';
import { testDatabase } from '../../control-plane/src/test-support/db.js';
import { ClockOffset } from '../../node-agent/src/assignments/clock.js';
import { AgentMetrics } from '../../node-agent/src/metrics/agent-metrics.js';
import { Outbox } from '../../node-agent/src/outbox/outbox.js';
import { openStateDb } from '../../node-agent/src/state/db.js';
import { tcpResult } from '../../node-agent/src/outbox/test-results.js';

/*
 * docs/operators/grafana-dashboard.json is valid JSON whose queries reference only metrics the
 * control plane and the agent export, grouping only by labels those metrics carry; with promtool
 * (Debian's prometheus package) every query must also parse as PromQL.
 */

const DASHBOARD = new URL('../../docs/operators/grafana-dashboard.json', import.meta.url);
const METRIC = /\b(?:vantage|process|nodejs)_[a-zA-Z0-9_]+\b/g;
/** Labels Prometheus adds to every scraped series, and the histogram bucket bound. */
const TARGET_LABELS = ['instance', 'job', 'le'];

/** Every metric name of a scrape and the label names its samples carry. */
function exported(text: string, into: Map<string, Set<string>>): void {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? /.exec(line);
    if (!m) continue;
    const labels = into.get(m[1]!) ?? new Set<string>();
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) labels.add(l[1]!);
    into.set(m[1]!, labels);
  }
}

t.test('the Grafana dashboard queries only exported metrics and their labels', async (t) => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>; templating: { list: Array<{ definition?: string }> } };
  const exprs = [
    ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((x) => ({ where: p.title, expr: x.expr }))),
    ...dashboard.templating.list.filter((v) => v.definition).map((v) => ({ where: 'variable', expr: v.definition! })),
  ];
  t.ok(exprs.length >= 20, `${exprs.length} queries`);

  // What a control plane (with one monitor result) and an agent really export.
  const names = new Map<string, Set<string>>();
  const { sql } = await testDatabase(t);
  const metrics = createMetrics(loadConfig({}));
  registerScrapeGauges(metrics, { sql, hub: { localNodeIds: () => [] }, pools: { main: 10 }, log: createLogger('silent') });
  metrics.http_requests.inc({ method: 'GET', route: '/healthz', status: '200' });
  metrics.http_duration.observe({ method: 'GET', route: '/healthz' }, 0.001);
  metrics.probe_results.inc({ type: 'tcp', outcome: 'success' });
  metrics.results_stored.inc({ kind: 'task' });
  const now = new Date().toISOString();
  metrics.monitors.record({ monitor_id: 'mon_a', node_id: 'node_a', success: true, scheduled_at: now, started_at: now, finished_at: now });
  exported(await metrics.render(), names);
  const dir = mkdtempSync(join(tmpdir(), 'vantage-dashboard-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openStateDb(join(dir, 'state'));
  t.teardown(() => db.close());
  const clock = new ClockOffset();
  const agent = new AgentMetrics({ outbox: new Outbox(db, { max_results: 10, max_age_s: 3600 }), clock_offset_ms: () => clock.offset_ms, connected: () => true });
  agent.produced(tcpResult());
  exported(await agent.registry.metrics(), names);

  for (const { where, expr } of exprs) {
    const used = [...new Set(expr.match(METRIC) ?? [])];
    t.ok(used.length > 0, `${where}: names a metric`);
    for (const name of used) t.ok(names.has(name), `${where}: ${name} is exported`);
    const carried = new Set([...TARGET_LABELS, ...used.flatMap((n) => [...(names.get(n) ?? [])])]);
    for (const group of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) {
      for (const label of group[1]!.split(',').map((s) => s.trim()).filter(Boolean)) t.ok(carried.has(label), `${where}: label ${label} is carried`);
    }
    for (const matcher of expr.matchAll(/[{,]\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) t.ok(carried.has(matcher[1]!), `${where}: label ${matcher[1]} is carried`);
  }

  const promtool = '/usr/bin/promtool';
  if (!existsSync(promtool)) {
    t.comment(`${promtool} not installed: PromQL syntax not checked (test/env/provision.sh installs prometheus)`);
    return;
  }
  // Each panel query as a recording rule: promtool parses them all. Grafana's variables get values first.
  const rules = exprs.filter((e) => !e.expr.startsWith('label_values')).map((e, i) => ({
    record: `dashboard:query_${i}`,
    expr: e.expr.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*').replaceAll('$monitor', '.*'),
  }));
  const file = join(dir, 'rules.yml');
  writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] })); // JSON is YAML
  const out = execFileSync(promtool, ['check', 'rules', file], { encoding: 'utf8' });
  t.match(out, new RegExp(`SUCCESS: ${rules.length} rules found`));
});
