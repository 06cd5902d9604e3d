/**
 * The benchmark runner's readers, on output captured from the real scripts (2026-11-22): each
 * script's figures come out in the right columns, and output of another shape is refused rather
 * than misread. No timings are measured here.
 */
import t from 'tap';
import { figuresFromProbeTables, figuresTable, parseMarkdownTables } from './markdown.js';
import { parseAgent, parseApi, parseHub, parseLiveness, parseProbeTables } from './parsers.js';
import { median, quantile } from './stats.js';

const PING = `| measure | ours | iputils ping | difference | goal |
|---|---|---|---|---|
| median rtt, loopback 127.0.0.1 (200/200 replies, 10 ms interval) | 0.079 ms | 0.034 ms | 0.045 ms | < 0.1 ms |
| single-packet pings/s, 50 concurrent, 1 core, veth peer (0 failed) | 32831/s | | | 2000/s |
`;

const DNS = `
Probe benchmark: DNS (node v20.20.2, N=100, interleaved with dig and a bare query)

| measure | ours | dig / reference / peak | difference | goal |
|---|---|---|---|---|
| DNS single A queries per second (50 tasks, 5 s) | 17035.30 |  | 0 failed | ≥ 2000 |

dig's "Query time" is whole ms, and every value it printed here is a multiple of 4 ms (their gcd):
`;

const AGENT = `outbox absorb: 20000 results one transaction each in 1.46 s = 13716 results/s
buffered: 100000 results, state DB 47.0 MB
replay: 100000 results; process start to connected 0.78 s; all delivered 2.62 s; outbox empty 2.62 s
drain rate (connected → outbox empty): 54487 results/s (duplicates seen by stub: 0)
idle agent (after replay): RSS 148.4 MB; CPU 0.30 % over 20 s
idle agent (fresh start): RSS 104.5 MB; CPU 0.25 % over 20 s
`;

const HUB = `{
  "nodes": 1000, "enroll_s": 1.55,
  "memory_per_node_bytes": { "heap_and_external": 6042, "rss": 27750 },
  "added_latency_post_to_last_result": {
    "fanout_10": { "probes": 30, "p50_ms": 8, "p99_ms": 22, "max_ms": 22 },
    "fanout_100": { "probes": 30, "p50_ms": 66, "p99_ms": 100, "max_ms": 100 }
  },
  "throughput": { "probes": 40, "tasks": 4000, "seconds": 3.04, "tasks_per_s": 1317 }
}`;

const API = `{ "endpoint": "GET /v1/account/profile (API key)", "connections": 20, "duration_s": 10, "requests": 14280,
  "requests_per_s": 1428, "latency_p50_ms": 10, "latency_p99_ms": 56, "latency_max_ms": 173, "failed": 0 }`;

t.test('probe tables: columns measure | ours | peer | difference | goal become figure, ours, peer, goal, difference', async (t) => {
  const ping = parseProbeTables(PING);
  t.same(ping.figures[0], { figure: 'median rtt, loopback 127.0.0.1 (200/200 replies, 10 ms interval)', ours: '0.079 ms', peer: '0.034 ms', goal: '< 0.1 ms', difference: '0.045 ms' });
  t.same(ping.figures[1], { figure: 'single-packet pings/s, 50 concurrent, 1 core, veth peer (0 failed)', ours: '32831/s', peer: '', goal: '2000/s', difference: '' });
  t.match(ping.note, /"iputils ping"/);
  const dns = parseProbeTables(DNS);
  t.equal(dns.figures.length, 1, 'prose around the table is ignored');
  t.equal(dns.figures[0]!.goal, '≥ 2000');
  t.throws(() => parseProbeTables('all good, 12 ms\n'), /no five-column Markdown table/);
});

t.test('hub, agent and API outputs', async (t) => {
  const hub = parseHub(`note: something on stdout first\n${HUB}`).figures;
  t.equal(hub.length, 5);
  t.match(hub[0], { ours: '1000 in 1.55 s' });
  t.match(hub[1], { ours: '5.9 / 27.1 KiB' });
  t.match(hub[3], { figure: /fan-out 100 \(p50 \/ p99 of 30\)/, ours: '66 / 100 ms' });
  t.match(hub[4], { figure: /40 probes × 100 nodes/, ours: '1317/s' });
  const agent = parseAgent(AGENT).figures;
  t.match(agent.map((f) => f.ours), ['13716 results/s', '2.62 s', '54487 results/s (0)', '104.5 / 148.4 MB', '0.25 / 0.30 % of a core']);
  t.throws(() => parseAgent(AGENT.replace(/^drain rate.*$/m, '')), /no "drain rate" line/);
  const api = parseApi(API).figures;
  t.match(api.map((f) => f.ours), ['1428/s', '10 / 56 / 173 ms']);
  t.throws(() => parseHub('crashed'), /no JSON object/);
});

const LIVENESS = `{
  "nodes": 10000,
  "heartbeat_interval_ms": 4000,
  "listen_backlog": 16384,
  "storm": {
    "failed_attempts": 0,
    "failure_reasons": {},
    "all_online_s": 2.6
  },
  "idle": {
    "seconds": 5,
    "event_loop_delay_max_ms": 10.37,
    "event_loop_delay_p99_ms": 8.13,
    "node_row_updates_per_min": 13125
  },
  "close_wave": {
    "online_after_2s": 8,
    "online_after_10s": 0,
    "max_online_after_1s": 8,
    "all_offline_s": 2.52
  },
  "storm_after_wave": {
    "failed_attempts": 0,
    "failure_reasons": {},
    "all_online_s": 2.17
  },
  "restart": {
    "gap_ms": 3000,
    "graceful": {
      "all_back_after_listen_s": 3.5,
      "failed_attempts": 17096,
      "failure_reasons": {
        "code 1006": 16981,
        "upgrade refused: HTTP 503: UNAVAILABLE: server shutting down": 115
      }
    },
    "crash": {
      "all_back_after_listen_s": 3.11,
      "failed_attempts": 13794,
      "failure_reasons": {
        "code 1006": 13794
      }
    }
  }
}`;

t.test('hub liveness output: each figure beside its goal', async (t) => {
  const live = parseLiveness(LIVENESS).figures;
  t.match(live.map((f) => f.ours), ['2.6 s (0)', '8.13 / 10.37 ms', '13125', '8 / 0; 2.52 s', '3.5 s (17096 attempts refused meanwhile)', '3.11 s (13794 attempts refused meanwhile)']);
  t.match(live[5], { figure: /^10,000 agents: crash restart.*kill -9 \(3000 ms gap\)/, goal: '< 10 s' });
  t.equal(parseLiveness(LIVENESS.replace('"nodes": 10000', '"nodes": 1000')).figures[5]!.goal, '< 10 s (at 10,000 nodes)');
  t.throws(() => parseLiveness('{"nodes": 10}'), TypeError, 'a missing phase is refused');
});

t.test('the table writer escapes pipes, and the reader reads them back', async (t) => {
  const md = figuresTable([{ figure: 'a | b', ours: '1', peer: '2', goal: '|x| < 1', difference: '-1' }]);
  t.equal(md.split('\n')[2], '| a \\| b | 1 | 2 | \\|x\\| < 1 | -1 |');
  const [table] = parseMarkdownTables(md);
  t.same(table!.rows[0], ['a | b', '1', '2', '|x| < 1', '-1']);
  t.same(figuresFromProbeTables(md).figures[0]!.figure, 'a | b');
});

t.test('median and nearest-rank quantile', async (t) => {
  t.equal(median([3, 1, 2]), 2);
  t.equal(median([4, 1, 3, 2]), 2.5);
  const thirty = Array.from({ length: 30 }, (_, i) => i + 1);
  t.equal(quantile(thirty, 0.95), 29, 'p95 of 1..30 is the 29th value');
  t.equal(quantile(thirty, 0.5), 15);
  t.ok(Number.isNaN(median([])));
});
