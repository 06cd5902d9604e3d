/**
 * Benchmark (not a test) of node liveness in the hub and the agent's reconnects: N nodes, each the
 * real agent connection (node-agent/src/connection/client.ts, its heartbeats and reconnect policy)
 * in a child process, against ONE in-process control-plane hub with the real result sink and
 * monitor assignment feed (as main.ts builds it; the nodes ack their sets) on the
 * real Postgres at TEST_DATABASE_URL (a scratch database, dropped afterwards). Prints JSON with:
 *  - storm: all N agents connect at the same instant; attempts that failed before `welcome` and
 *    the time until all N are online;
 *  - idle (`--idle-s`, default 60, from three heartbeat intervals after the storm): event-loop
 *    delay of the control plane (perf_hooks monitorEventLoopDelay: max and p99, ms; the heartbeat
 *    tick is the only work at idle) and `nodes` row updates per minute (pg_stat_user_tables
 *    n_tup_upd delta);
 *  - close wave: all N agents close at once just after a heartbeat tick starts; nodes still
 *    `online` 2 s and 10 s later and when the last one went offline;
 *  - restart: the hub closes (server shutdown close code) and a new one listens on the same port
 *    `--restart-gap-ms` later; attempts that failed and the time until all N are back online;
 *  - crash: the same with every socket cut without a close frame (a killed process).
 *
 *   node --import tsx test/bench/hub-liveness-bench.ts [--nodes 1000] [--idle-s 60] [--restart-gap-ms 3000]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' }, 'idle-s': { type: 'string', default: '60' },
    'restart-gap-ms': { type: 'string', default: '3000' }, 'sim-nodes': { type: 'boolean', default: false },
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (values['sim-nodes']) await simulateNodes();
else await main();

// ───────────────────────────── child: N real agent connections ─────────────────────────────
interface ChildStats { failed_attempts: number; welcomed: number; up: number; reasons: Record<string, number> }

async function simulateNodes(): Promise<void> {
  const { Connection } = await import('../../node-agent/src/connection/client.js');
  const { PROTOCOL_VERSION } = await import('@vantage/shared-protocol');
  const { Secret } = await import('../../node-agent/src/secret.js');
  // Ready for the node list only once the agent modules are loaded (an IPC message with no listener is lost).
  const init = new Promise<{ base: string; nodes: Array<{ id: string; credential: string }> }>((resolve) => process.once('message', resolve as never));
  process.send!({ loaded: true });
  const { base, nodes } = await init;
  const stats: ChildStats = { failed_attempts: 0, welcomed: 0, up: 0, reasons: {} };
  let conns: Array<InstanceType<typeof Connection>> = [];
  const start = () => {
    conns = nodes.map((n) => {
      let welcomed_this_attempt = false;
      const noop = () => {};
      // A logger that only counts: a reconnect warning after an attempt that never got `welcome` is a failed handshake.
      const log = {
        warn: (obj: { retry_in_ms?: number; reason?: string }) => {
          if (obj?.retry_in_ms === undefined) return;
          if (!welcomed_this_attempt) {
            stats.failed_attempts++;
            const why = String(obj.reason ?? '?').slice(0, 60);
            stats.reasons[why] = (stats.reasons[why] ?? 0) + 1;
          }
          welcomed_this_attempt = false;
        },
        info: noop, debug: noop, error: noop, trace: noop, fatal: noop, child: () => log,
      };
      // Assignment sets are acked as the agent does (node-agent/src/connection/dispatch.ts).
      const onMessage = (m: { type: string; version?: number }) => {
        if (m.type === 'assignments.full') c.send({ type: 'assignments.ack', version: m.version! });
      };
      const c: InstanceType<typeof Connection> = new Connection({
        control_plane_url: base,
        greeting: () => ({ secret: new Secret(n.credential), first: { type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: 'bench', node_id: n.id, capabilities: ['tcp'] } }),
        onWelcome: () => { welcomed_this_attempt = true; stats.welcomed++; stats.up++; },
        onMessage: onMessage as never,
        onDown: () => { stats.up--; },
        log: log as never,
      });
      void c.run().catch(() => {});
      return c;
    });
  };
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'start') { start(); process.send!({ ok: true }); }
    else if (m.cmd === 'stop') void Promise.all(conns.map((c) => c.stop())).then(() => process.send!({ ok: true }));
    else if (m.cmd === 'stats') { process.send!({ stats: { ...stats, reasons: { ...stats.reasons } } }); }
    else if (m.cmd === 'exit') process.exit(0);
  });
  process.send!({ ready: true });
}

// ───────────────────────────── parent: control plane + measurements ─────────────────────────────
async function main(): Promise<void> {
  const { newId, newSecret } = await import('@vantage/shared-protocol');
  const { testDatabase } = await import('../../control-plane/src/test-support/db.js');
  const { loadConfig } = await import('../../control-plane/src/config/index.js');
  const { createLogger } = await import('../../control-plane/src/log.js');
  const hubModule = await import('../../control-plane/src/hub/hub.js');
  const { createResultSink } = await import('../../control-plane/src/probes/sink.js');
  const { createAssignmentFeed } = await import('../../control-plane/src/monitors/assignment-feed.js');
  const { secretHash } = await import('../../control-plane/src/nodes/secrets.js');
  const n_nodes = Number(values.nodes);
  const idle_s = Number(values['idle-s']);
  const gap_ms = Number(values['restart-gap-ms']);
  const limit_ms = Number(process.env.BENCH_LIMIT_MS ?? 180_000);
  // The listen backlog main.ts uses (Node's default, 511, when the hub does not export one).
  const backlog = (hubModule as { LISTEN_BACKLOG?: number }).LISTEN_BACKLOG ?? 511;

  const teardowns: Array<() => unknown> = [];
  const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
  let child: ChildProcess | undefined;
  try {
    const { url, sql } = await testDatabase(t);
    // Every simulated node connects from 127.0.0.1; a fleet comes from as many addresses, so the
    // per-address upgrade limit (600 a minute by default) would measure only itself here.
    const config = loadConfig({}, { database_url: url, log_level: 'silent', instance_id: 'bench', rate_limit_upgrades: 10_000_000 });
    const log = createLogger('silent');
    const results = createResultSink({ sql, log, config });

    // N enrolled nodes with credentials, written directly (enrollment is not what is measured).
    const nodes = Array.from({ length: n_nodes }, (_, i) => ({ id: newId('node'), credential: newSecret('node_credential'), name: `sim-${i}` }));
    for (let i = 0; i < nodes.length; i += 1000) {
      const part = nodes.slice(i, i + 1000);
      await sql`INSERT INTO nodes (id, name, credential_hash, credential_confirmed_at)
        SELECT id, name, hash, now() FROM unnest(${part.map((n) => n.id)}::text[], ${part.map((n) => n.name)}::text[], ${part.map((n) => secretHash(n.credential))}::text[]) AS x(id, name, hash)`;
    }

    let hub!: ReturnType<typeof hubModule.createHub>;
    let feed!: ReturnType<typeof createAssignmentFeed>;
    let server!: Server;
    let hub_started_at = 0;
    let port = 0;
    const sockets = new Set<Socket>();
    const startControlPlane = async () => {
      hub_started_at = Date.now();
      // As main.ts builds it: every node gets its monitor assignments after hello.
      feed = createAssignmentFeed({ sql, log, config });
      await feed.start();
      hub = hubModule.createHub({ sql, log, config, results, assignments: feed });
      await hub.ready();
      server = createServer((_req, res) => res.writeHead(404).end());
      server.on('connection', (sock: Socket) => { sockets.add(sock); sock.once('close', () => sockets.delete(sock)); });
      hub.attach(server);
      await new Promise<void>((resolve) => server.listen({ port, host: '127.0.0.1', backlog }, resolve));
      port = (server.address() as AddressInfo).port;
    };
    const stopControlPlane = async (crash: boolean) => {
      // A killed process: every socket cut without a close frame (the agents see a reset, 1006);
      // then the hub's timers are stopped as the process would be gone.
      if (crash) for (const sock of sockets) sock.destroy();
      await hub.close();
      await feed.stop();
      sockets.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    await startControlPlane();
    const base = `http://127.0.0.1:${port}`;
    t.teardown(async () => { await hub.close(); await feed.stop(); server.closeAllConnections(); await new Promise((r) => server.close(r)); });

    child = fork(fileURLToPath(import.meta.url), ['--sim-nodes'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const replies: Array<(m: any) => void> = [];
    child.on('message', (m) => replies.shift()?.(m));
    const ask = (m: unknown) => new Promise<any>((resolve) => { replies.push(resolve); child!.send(m as never); });
    await new Promise<void>((resolve) => replies.push(() => resolve())); // agent modules loaded
    await ask({ base, nodes: nodes.map(({ id, credential }) => ({ id, credential })) });

    const online = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n;
    const allOnline = async (limit_ms: number) => {
      const t0 = Date.now();
      while (Date.now() - t0 < limit_ms) {
        const db_online = await online();
        if (hub.localNodeIds().length === n_nodes && db_online === n_nodes) return (Date.now() - t0) / 1000;
        if (process.env.BENCH_DEBUG) console.error(`held ${hub.localNodeIds().length}, online ${db_online}, child ${JSON.stringify((await ask({ cmd: 'stats' })).stats)}`);
        await sleep(process.env.BENCH_DEBUG ? 1000 : 50);
      }
      console.error(`not all online: held ${hub.localNodeIds().length}, online ${await online()}, child ${JSON.stringify((await ask({ cmd: 'stats' })).stats)}`);
      return Number.NaN;
    };
    const storm = async () => {
      const before = (await ask({ cmd: 'stats' })).stats as ChildStats;
      await ask({ cmd: 'start' });
      const all_online_s = await allOnline(limit_ms);
      const after = (await ask({ cmd: 'stats' })).stats as ChildStats;
      return { failed_attempts: after.failed_attempts - before.failed_attempts, failure_reasons: reasonsDelta(before, after), all_online_s: round(all_online_s) };
    };

    console.error(`storm: ${n_nodes} agents connect at once (listen backlog ${backlog})`);
    const storm_1 = await storm();

    // Each connection's first heartbeat reports its clock offset, written once (hub/clock-offset.ts):
    // the idle window starts after every node's first heartbeat, so it counts steady-state writes only.
    console.error(`idle: ${idle_s} s, after ${(3 * config.heartbeat_interval_ms) / 1000} s`);
    await sleep(3 * config.heartbeat_interval_ms);
    const updates = async () => {
      await sql`SELECT pg_stat_clear_snapshot()`;
      return Number((await sql<{ n: string }[]>`SELECT n_tup_upd::text AS n FROM pg_stat_user_tables WHERE relname = 'nodes'`)[0]!.n);
    };
    const h = monitorEventLoopDelay({ resolution: 5 });
    const upd0 = await updates();
    h.enable();
    await sleep(idle_s * 1000);
    h.disable();
    // Statistics reach pg_stat_user_tables when a backend commits (at most once a second) or idles 10 s.
    await sleep(11_000);
    const upd1 = await updates();
    const idle = {
      seconds: idle_s,
      event_loop_delay_max_ms: round(h.max / 1e6), event_loop_delay_p99_ms: round(h.percentile(99) / 1e6),
      node_row_updates_per_min: Math.round(((upd1 - upd0) * 60) / (idle_s + 11)),
    };

    console.error('close wave');
    const interval_ms = config.heartbeat_interval_ms;
    const next_tick = hub_started_at + Math.ceil((Date.now() - hub_started_at) / interval_ms) * interval_ms;
    await sleep(Math.max(0, next_tick - Date.now()) + 20);
    const wave_at = Date.now();
    await ask({ cmd: 'stop' });
    const samples: Array<{ at_s: number; online: number }> = [];
    let all_offline_s = Number.NaN;
    while (Date.now() - wave_at < 70_000) {
      const n = await online();
      samples.push({ at_s: (Date.now() - wave_at) / 1000, online: n });
      if (n === 0 && hub.localNodeIds().length === 0) {
        if (Number.isNaN(all_offline_s)) all_offline_s = (Date.now() - wave_at) / 1000;
        if (Date.now() - wave_at > 12_000) break; // and stays so past two ticks
      } else all_offline_s = Number.NaN;
      await sleep(250);
    }
    const onlineAt = (s: number) => samples.find((x) => x.at_s >= s)?.online ?? null;
    const close_wave = { online_after_2s: onlineAt(2), online_after_10s: onlineAt(10), max_online_after_1s: Math.max(0, ...samples.filter((x) => x.at_s >= 1).map((x) => x.online)), all_offline_s: round(all_offline_s) };

    console.error('storm 2 (reconnect after the wave)');
    const storm_2 = await storm();

    const restart = async (crash: boolean) => {
      const before = (await ask({ cmd: 'stats' })).stats as ChildStats;
      await stopControlPlane(crash);
      await sleep(gap_ms);
      await startControlPlane();
      const back_s = await allOnline(limit_ms);
      const after = (await ask({ cmd: 'stats' })).stats as ChildStats;
      return { all_back_after_listen_s: round(back_s), failed_attempts: after.failed_attempts - before.failed_attempts, failure_reasons: reasonsDelta(before, after) };
    };
    console.error('restart (graceful)');
    const restart_graceful = await restart(false);
    console.error('restart (crash)');
    const restart_crash = await restart(true);

    console.log(JSON.stringify({
      nodes: n_nodes, heartbeat_interval_ms: interval_ms, listen_backlog: backlog,
      storm: storm_1, idle, close_wave, storm_after_wave: storm_2,
      restart: { gap_ms, graceful: restart_graceful, crash: restart_crash },
    }, null, 2));
  } finally {
    child?.send({ cmd: 'exit' });
    await sleep(300);
    for (const fn of teardowns) await fn();
  }
}

/** Failed attempts per reason between two child snapshots, most frequent first (top 5). */
function reasonsDelta(before: ChildStats, after: ChildStats): Record<string, number> {
  const out = Object.entries(after.reasons).map(([k, n]) => [k, n - (before.reasons[k] ?? 0)] as const).filter(([, n]) => n > 0);
  return Object.fromEntries(out.sort((a, b) => b[1] - a[1]).slice(0, 5));
}

function round(x: number): number {
  return Number.isFinite(x) ? Math.round(x * 100) / 100 : x;
}
