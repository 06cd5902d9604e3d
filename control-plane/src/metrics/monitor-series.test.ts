import t from 'tap';
import { MonitorSeries } from './monitor-series.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, s)).toISOString();
const result = (monitor_id: string, node_id: string, round_s: number, success = true, duration_ms = 250) => ({
  monitor_id, node_id, success, scheduled_at: at(round_s), started_at: at(round_s), finished_at: new Date(Date.parse(at(round_s)) + duration_ms).toISOString(),
});

t.test('renders up, duration and last check per monitor and node; a later round replaces, an earlier or equal one does not', async (t) => {
  const series = new MonitorSeries(10, 3600);
  t.equal((await series.render()), '', 'nothing recorded: no lines at all');
  series.record(result('mon_a', 'node_1', 0, true, 250));
  series.record(result('mon_a', 'node_2', 0, false, 1500));
  const text = (await series.render());
  t.match(text, /# TYPE vantage_monitor_up gauge\n/);
  t.match(text, /^vantage_monitor_up\{monitor="mon_a",node="node_1"\} 1$/m);
  t.match(text, /^vantage_monitor_up\{monitor="mon_a",node="node_2"\} 0$/m);
  t.match(text, /^vantage_monitor_check_duration_seconds\{monitor="mon_a",node="node_2"\} 1.5$/m);
  t.match(text, new RegExp(`^vantage_monitor_last_check_timestamp_seconds\\{monitor="mon_a",node="node_1"\\} ${Date.parse(at(0)) / 1000 + 0.25}$`, 'm'));

  series.record(result('mon_a', 'node_1', 60, false));
  t.match((await series.render()), /^vantage_monitor_up\{monitor="mon_a",node="node_1"\} 0$/m, 'the next round replaces');
  series.record(result('mon_a', 'node_1', 0, true));
  series.record(result('mon_a', 'node_1', 60, true));
  t.match((await series.render()), /^vantage_monitor_up\{monitor="mon_a",node="node_1"\} 0$/m, 'an earlier round, or the same round again, changes nothing');
});

t.test('bounded: past max_series the pair that reported least recently goes; past the TTL every stale pair goes', async (t) => {
  let now = 1_000_000;
  const series = new MonitorSeries(3, 60, () => now);
  for (const m of ['mon_1', 'mon_2', 'mon_3']) series.record(result(m, 'node_1', 0));
  now += 30_000;
  series.record(result('mon_1', 'node_1', 60)); // mon_1 is now the most recent
  series.record(result('mon_4', 'node_1', 60));
  t.equal(series.size, 3);
  const kept = [...(await series.render()).matchAll(/^vantage_monitor_up\{monitor="(mon_\d)"/gm)].map((m) => m[1]).sort();
  t.same(kept, ['mon_1', 'mon_3', 'mon_4'], 'mon_2, the least recent, was dropped');
  now += 45_000; // mon_3 last reported 75 s ago, mon_1 and mon_4 45 s ago
  t.same([...(await series.render()).matchAll(/^vantage_monitor_up\{monitor="(mon_\d)"/gm)].map((m) => m[1]).sort(), ['mon_1', 'mon_4']);
  now += 60_000;
  t.equal((await series.render()), '', 'all past the TTL');
  t.equal(series.size, 0);
  const none = new MonitorSeries(0, 60);
  none.record(result('mon_1', 'node_1', 0));
  t.equal((await none.render()), '', 'max_series 0 keeps no series');
});

t.test('label values are escaped as the text format requires', async (t) => {
  const series = new MonitorSeries(10, 3600);
  series.record(result('mon_"x\\', 'node\n1', 0));
  t.match((await series.render()), /^vantage_monitor_up\{monitor="mon_\\"x\\\\",node="node\\n1"\} 1$/m);
});
