/**
 * Benchmark (not a test): monitor placement and assignments at scale, on one control-plane
 * instance (the whole app in-process, requests through app.request) and the real Postgres at
 * TEST_DATABASE_URL (a scratch database, dropped afterwards). Simulated nodes are rows in `nodes`
 * (online, spread over 40 countries and many networks); one of them is a real WebSocket client.
 *
 *   npx tsx test/bench/monitor-bench.ts [--monitors 100000] [--nodes 1000] [--concurrency 16] [--api-creates N]
 *       [--warmup-calls 2000] [--warmup-s 20] [--cpu-profile FILE]
 *
 * With --api-creates N (default: all), only the last N monitors are created through the API;
 * the others are inserted with SQL and placed by the placement job (as monitors imported or
 * created behind the API's back are), which is also timed (bulk_place_per_s).
 *
 * Prints JSON figures:
 * - create_p50_ms / create_p99_ms: POST /v1/monitors, each placed at once on 3 nodes (the
 *   monitors belong to accounts of 1,000 monitors each: the plan quota is counted per account);
 * - list_page100_p99_ms: GET /v1/monitors?limit=100 at random pages (goal < 10 ms), each timed
 *   until the answer's last byte (checked after: until 2026-12-03 the client's parse was timed
 *   too; since then its items are counted in the bytes, and one answer in 25 parsed), after VACUUM
 *   ANALYZE of the monitors (this machine's Postgres runs without autovacuum), 300 requests after
 *   `warmup-calls` untimed ones (or `warmup-s` seconds of them when those take longer: V8 keeps
 *   optimizing a request's code for thousands of calls, which a running server made long before);
 *   with the statements each request sent, this process's CPU per request (µs) and its garbage
 *   collections over the 300 requests (count, pause ms; list_gc_major_*: the full ones) and its heap
 *   in use after them (list_heap_used_mb); with --cpu-profile FILE, this process's CPU profile of
 *   those 300 requests; list_page100_cold_*: the same 300 timed
 *   first, before the warm-up (as this figure was measured before the warm-up was added);
 * - uptime_p50_ms / uptime_p99_ms: GET /v1/monitors/{id}/uptime?period=24h of 300 random monitors
 *   (no check history: the query among this many monitors; over history see checks-bench.ts);
 * - full_set_1000_p50_ms / _p99_ms: a node with 1,000 assignments says hello; time until it has
 *   received its whole set (assignments.full, continued as deltas past 256 KB) (goal < 200 ms);
 *   full_set_validate_p50_ms: what validating those frames with the protocol schemas costs a node;
 * - replace_dead_node_ms: a node running ~1,000 monitors is offline past the grace; time for the
 *   placement job to move every one of them (goal < 5 s; the job's own period, 2 s by default,
 *   comes on top).
 */
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { NODE_WS_PATH, PROTOCOL_VERSION, newSecret, parseServerMessage } from '@vantage/shared-protocol';
import { createRequire } from 'node:module';
import { secretHash } from '../../control-plane/src/nodes/secrets.js';
import { listMonitors } from '../../control-plane/src/monitors/monitors.db.js';
import { startPlacementJob } from '../../control-plane/src/monitors/placement-job.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { startCpuProfile } from './lib/cpu-profiler.js';
import { quantile } from './lib/stats.js';

// ws is a dependency of the control plane (its type declarations are not visible from test/).
interface RawSocket {
  on(event: 'message', listener: (data: Buffer) => void): void;
  once(event: 'open' | 'close' | 'error', listener: (...args: unknown[]) => void): void;
  send(text: string): void;
  close(): void;
}
const WebSocket = createRequire(new URL('../../control-plane/package.json', import.meta.url))('ws') as new (url: string, opts: { headers: Record<string, string> }) => RawSocket;

const { values } = parseArgs({ options: {
  monitors: { type: 'string', default: '100000' }, nodes: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '16' }, 'api-creates': { type: 'string' },
  'warmup-calls': { type: 'string', default: '2000' }, 'warmup-s': { type: 'string', default: '20' }, 'cpu-profile': { type: 'string' },
} });
const MONITORS = Number(values.monitors);
const API_CREATES = Math.min(MONITORS, Number(values['api-creates'] ?? MONITORS));
const NODES = Number(values.nodes);
const WARMUP_CALLS = Number(values['warmup-calls']);
const WARMUP_S = Number(values['warmup-s']);
const CONCURRENCY = Number(values.concurrency);
const PER_ACCOUNT = 1000;
const GRACE_MS = 5000;

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const round = (x: number) => Math.round(x * 10) / 10;

try {
  const { app, sql, url, deps } = await testApp(t, {
    generic_plans: true,
    config: { plan: 'business', plan_monitors_max: 1_000_000, probe_allow_cidrs: ['198.18.0.0/15'], placement_grace_ms: GRACE_MS, placement_interval_ms: 600_000 },
  });

  // Nodes: 40 countries, 4 networks each, then one node per remaining network.
  const credential = newSecret('node_credential');
  // Their holder: an instance whose lease stays fresh (else the hub's lease sweep takes them offline).
  await sql`INSERT INTO hub_instances (instance_id, lease_at) VALUES ('sim', now() + interval '1 day')`;
  await sql`
    INSERT INTO nodes (id, name, status, instance_id, country, asn, capabilities, last_seen_at, credential_hash, credential_confirmed_at)
    SELECT 'n_' || lpad(g::text, 26, '0'), 'sim-' || g, 'online', 'sim', chr(65 + (g % 40) / 26) || chr(65 + (g % 40) % 26),
      64512 + g % 160, ARRAY['http', 'dns', 'tcp', 'ping', 'traceroute'], now(), NULL, now()
    FROM generate_series(1, ${NODES}) g`;
  const probe_node = 'n_' + '1'.padStart(26, '0');
  await sql`UPDATE nodes SET credential_hash = ${secretHash(credential)} WHERE id = ${probe_node}`;
  log(`${NODES} nodes`);

  // Accounts of PER_ACCOUNT monitors each.
  const accounts: Array<{ token: string; user_id: string }> = [];
  for (let i = 0; i < Math.ceil(MONITORS / PER_ACCOUNT); i++) {
    const u = await registerUser(app);
    accounts.push({ token: u.access_token, user_id: u.user_id });
  }
  // The monitors before the API's share: inserted with SQL, placed by the placement job.
  const BULK = MONITORS - API_CREATES;
  let bulk_place_per_s: number | null = null;
  if (BULK > 0) {
    for (let a = 0; a * PER_ACCOUNT < BULK; a++) {
      const from = a * PER_ACCOUNT;
      const to = Math.min(BULK, from + PER_ACCOUNT) - 1;
      await sql`
        INSERT INTO monitors (id, user_id, name, type, target, config, interval_s, node_count)
        SELECT 'm_' || lpad(g::text, 26, '0'), ${accounts[a]!.user_id}, 'm' || g, 'https', 'https://198.18.' || ((g >> 8) & 255) || '.' || (g & 255) || '/',
          '{"method":"GET","timeout_ms":10000,"headers":{},"follow_redirects":true,"ip_version":"auto","expected_status":"200-399","assertions":[],"ignore_tls_errors":false}',
          60, 3
        FROM generate_series(${from}::int, ${to}::int) g`;
    }
    await sql`UPDATE placement_queue SET due_at = now()`;
    const bulkJob = startPlacementJob({ sql, log: deps.log, config: deps.config });
    const t0 = Date.now();
    await bulkJob.runOnce();
    bulk_place_per_s = Math.round(BULK / ((Date.now() - t0) / 1000));
    await bulkJob.stop();
    log(`${BULK} monitors inserted and placed by the job (${bulk_place_per_s}/s)`);
  }
  const create_ms: number[] = [];
  let next = BULK;
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < MONITORS) {
      const i = next++;
      const t0 = performance.now();
      const res = await call(app, 'POST', '/v1/monitors', {
        token: accounts[Math.floor(i / PER_ACCOUNT)]!.token,
        body: { name: `m${i}`, type: 'https', target: `https://198.18.${(i >> 8) & 255}.${i & 255}/`, interval_s: 60, node_count: 3 },
      });
      create_ms.push(performance.now() - t0);
      if (res.status !== 201 || res.body.data.node_ids.length !== 3) throw new Error(`create ${i}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      if ((i - BULK) % 10_000 === 0 && i > BULK) log(`${i - BULK} monitors through the API, ${Math.round((i - BULK) / ((Date.now() - started) / 1000))}/s`);
    }
  }));
  const create_s = (Date.now() - started) / 1000;
  log(`${API_CREATES} monitors through the API in ${Math.round(create_s)} s`);

  // The tables as a server with autovacuum has them (this machine's Postgres runs without it):
  // planner statistics of the monitors just written, their visibility map for index-only scans.
  await sql`VACUUM ANALYZE monitors, monitor_placements`;

  // List pages of 100, with what each request costs besides its time: the statements it sent
  // (the app's client's debug hook counts them), this process's CPU, its garbage collections.
  // Timed cold first (the first list requests of the process), then again after the warm-up.
  // Timed until the answer's last byte, as a client on its own process sees it; the answer is
  // checked after the clock stops. A client on its own process parses the answer in its own heap:
  // here the client shares the server's, so each answer is read as bytes and its items counted
  // there (no string, no object tree), and every LIST_PARSE_EVERY-th one is decoded and parsed in
  // full. Parsing every answer (until 2026-12-03) cost this process about 0.5 ms of CPU per request
  // and 23-25 scavenges per 300 requests instead of 19-21, landing in later requests.
  const LIST_PARSE_EVERY = 25;
  const ITEM_KEY = Buffer.from(',"heartbeat":');
  const listPage = async (i: number): Promise<number> => {
    const page = 1 + Math.floor(Math.random() * (PER_ACCOUNT / 100));
    const t0 = performance.now();
    const res = await app.request(`/v1/monitors?limit=100&page=${page}`, { headers: { authorization: `Bearer ${accounts[i % accounts.length]!.token}` } });
    const body = Buffer.from(await res.arrayBuffer());
    const ms = performance.now() - t0;
    let items = 0;
    for (let at = body.indexOf(ITEM_KEY); at !== -1; at = body.indexOf(ITEM_KEY, at + ITEM_KEY.length)) items++;
    if (res.status !== 200 || items !== 100) throw new Error(`list: ${res.status}, ${items} items`);
    if (i % LIST_PARSE_EVERY === 0 && (JSON.parse(body.toString('utf8')) as { data: { items: unknown[] } }).data.items.length !== 100) throw new Error('list: not 100 items');
    return ms;
  };
  const timeList = async () => {
    const ms: number[] = [];
    let statements = 0;
    (sql.options as unknown as { debug: unknown }).debug = () => { statements++; };
    const gc = { n: 0, ms: 0, major: 0, major_ms: 0 };
    const gcWatch = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        gc.n++;
        gc.ms += e.duration;
        if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === perf.NODE_PERFORMANCE_GC_MAJOR) { gc.major++; gc.major_ms += e.duration; }
      }
    });
    gcWatch.observe({ entryTypes: ['gc'] });
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < 300; i++) {
      ms.push(await listPage(i));
    }
    const cpu = process.cpuUsage(cpu0);
    gcWatch.disconnect();
    (sql.options as unknown as { debug: unknown }).debug = undefined;
    return {
      ms, statements_per_request: round(statements / 300), node_cpu_us: Math.round((cpu.user + cpu.system) / 300), gc_count: gc.n, gc_ms: round(gc.ms),
      gc_major_count: gc.major, gc_major_ms: round(gc.major_ms), heap_used_mb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    };
  };
  const cold = await timeList();
  const warm_until = performance.now() + WARMUP_S * 1000;
  for (let i = 0; i < WARMUP_CALLS && performance.now() < warm_until; i++) await listPage(i);
  const profiler = values['cpu-profile'] ? await startCpuProfile() : null;
  const listed = await timeList();
  if (profiler) {
    await profiler.stop(values['cpu-profile']!);
    log(`CPU profile of the warm list requests written to ${values['cpu-profile']}`);
  }
  const list_ms = listed.ms;
  const list_cost = {
    list_statements_per_request: listed.statements_per_request, list_node_cpu_us: listed.node_cpu_us, list_gc_count: listed.gc_count, list_gc_ms: listed.gc_ms,
    list_gc_major_count: listed.gc_major_count, list_gc_major_ms: listed.gc_major_ms, list_heap_used_mb: listed.heap_used_mb,
    list_page100_cold_p50_ms: round(quantile(cold.ms, 0.5)), list_page100_cold_p99_ms: round(quantile(cold.ms, 0.99)), list_cold_node_cpu_us: cold.node_cpu_us,
  };

  // The list query alone (no HTTP, no middleware).
  const query_ms: number[] = [];
  for (let i = 0; i < 300; i++) {
    const page = 1 + Math.floor(Math.random() * (PER_ACCOUNT / 100));
    const t0 = performance.now();
    await listMonitors(sql, { user_id: accounts[i % accounts.length]!.user_id, team_ids: [] }, {}, page, 100);
    query_ms.push(performance.now() - t0);
  }

  // Uptime of random monitors among them (no check history here: what the query costs with
  // MONITORS monitors in the tables; its cost over 90 days of history is checks-bench.ts's).
  const token_of = new Map(accounts.map((a) => [a.user_id, a.token]));
  const sample = await sql<{ id: string; user_id: string }[]>`SELECT id, user_id FROM monitors ORDER BY random() LIMIT 300`;
  const uptime_ms: number[] = [];
  for (const m of sample) {
    const t0 = performance.now();
    const res = await call(app, 'GET', `/v1/monitors/${m.id}/uptime?period=24h`, { token: token_of.get(m.user_id)! });
    uptime_ms.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`uptime: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  }

  // A node with 1,000 assignments reconnects.
  const have = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitor_placements WHERE node_id = ${probe_node} AND ended_at IS NULL`)[0]!.n;
  await sql`
    INSERT INTO monitor_placements (monitor_id, node_id, revision)
    SELECT id, ${probe_node}, revision FROM monitors
    WHERE id NOT IN (SELECT monitor_id FROM monitor_placements WHERE node_id = ${probe_node}) ORDER BY id LIMIT ${Math.max(0, 1000 - have)}`;
  await sql`SELECT bump_node_assignments(${[probe_node]}::text[])`;
  // A raw WebSocket client (JSON.parse only): the figure is the control plane's, not a node's
  // schema validation of 1,000 configs (an agent validates each frame too: full_set_validate_ms).
  const full_ms: number[] = [];
  const validate_ms: number[] = [];
  let frames = 0;
  for (let i = 0; i < 30; i++) {
    const ws = new WebSocket(url.replace(/^http/, 'ws') + NODE_WS_PATH, { headers: { authorization: `Bearer ${credential}` } });
    await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    const t0 = performance.now();
    const raw: string[] = [];
    await new Promise<void>((resolve) => {
      let count = 0;
      ws.on('message', (data: Buffer) => {
        const text = data.toString('utf8');
        const m = JSON.parse(text) as { type: string; assignments?: unknown[]; upsert?: unknown[] };
        if (m.type === 'assignments.full' || m.type === 'assignments.delta') {
          raw.push(text);
          count += (m.assignments ?? m.upsert ?? []).length;
          if (count >= 1000) resolve();
        }
      });
      ws.send(JSON.stringify({ type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: '0.0.0-bench', node_id: probe_node }));
    });
    full_ms.push(performance.now() - t0);
    frames = raw.length;
    const v0 = performance.now();
    for (const text of raw) if (!parseServerMessage(text).ok) throw new Error('invalid assignments frame');
    validate_ms.push(performance.now() - v0);
    ws.close();
    await new Promise((resolve) => ws.once('close', resolve));
  }

  // That node dies: offline past the grace; the placement job moves its monitors.
  const job = startPlacementJob({ sql, log: deps.log, config: deps.config });
  t.teardown(() => job.stop());
  await sql`UPDATE nodes SET status = 'offline', instance_id = NULL, last_seen_at = now() - make_interval(secs => ${GRACE_MS / 1000 + 1}) WHERE id = ${probe_node}`;
  const t0 = performance.now();
  await job.runOnce();
  const replace_ms = performance.now() - t0;
  const left = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitor_placements WHERE node_id = ${probe_node} AND ended_at IS NULL`)[0]!.n;
  const short = (await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM monitors m WHERE (SELECT count(*) FROM monitor_placements p WHERE p.monitor_id = m.id AND p.ended_at IS NULL) < 3`)[0]!.n;

  console.log(JSON.stringify({
    monitors: MONITORS, nodes: NODES, concurrency: CONCURRENCY, load_average: (await import('node:os')).loadavg().map((x) => round(x)),
    create_p50_ms: round(quantile(create_ms, 0.5)), create_p99_ms: round(quantile(create_ms, 0.99)),
    api_creates: API_CREATES, creates_per_s: Math.round(API_CREATES / create_s), bulk_place_per_s,
    list_page100_p50_ms: round(quantile(list_ms, 0.5)), list_page100_p99_ms: round(quantile(list_ms, 0.99)),
    ...list_cost,
    list_query_p50_ms: round(quantile(query_ms, 0.5)), list_query_p99_ms: round(quantile(query_ms, 0.99)),
    uptime_p50_ms: round(quantile(uptime_ms, 0.5)), uptime_p99_ms: round(quantile(uptime_ms, 0.99)),
    full_set_1000_p50_ms: round(quantile(full_ms, 0.5)), full_set_1000_p99_ms: round(quantile(full_ms, 0.99)), full_set_frames: frames,
    full_set_validate_p50_ms: round(quantile(validate_ms, 0.5)),
    replace_dead_node_monitors: 1000, replace_dead_node_ms: Math.round(replace_ms), left_on_dead_node: left, monitors_short_after: short,
  }, null, 2));
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  for (const fn of teardowns) await fn();
}
