/**
 * Benchmark (not a test) of the node hub, issue 6: N simulated nodes (light ws clients in a child
 * process speaking the real protocol: enroll, answer heartbeats, answer every task.run at once
 * with task.ack + one tcp result) on ONE control-plane instance (this process, real Postgres at
 * TEST_DATABASE_URL, a scratch database dropped afterwards). Prints JSON with:
 *  - memory per connected node: this process's heap+external growth after GC, divided by N
 *    (and the RSS growth), the simulated nodes living in another process;
 *  - the control plane's own added latency from POST /v1/probe/tcp to the last node result
 *    stored (probe_results.stored_at), p50/p99, for probes fanned out to 10 and to 100 nodes
 *    (the nodes answer immediately, so all of it is control-plane time: validation, selection,
 *    task rows, dispatch, ingest);
 *  - probe tasks completed per second with many probes in flight.
 * Targets are 198.18.0.10 (allow-listed test range); no probe traffic is sent: nodes fake results.
 *
 *   node --expose-gc --import tsx test/bench/hub-bench.ts [--nodes 1000] [--iterations 30] [--burst 40]
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' }, iterations: { type: 'string', default: '30' },
    burst: { type: 'string', default: '40' }, 'sim-nodes': { type: 'boolean', default: false },
  },
});

if (values['sim-nodes']) await simulateNodes();
else await main();

// ───────────────────────────── child: simulated nodes ─────────────────────────────
async function simulateNodes(): Promise<void> {
  // ws is a dependency of the control plane (its types are not visible from test/).
  interface SimSocket { send(data: string): void; close(): void; on(event: string, fn: (arg: any) => void): void }
  const WebSocket = createRequire(new URL('../../control-plane/package.json', import.meta.url))('ws') as new (url: string, opts: object) => SimSocket;
  const { newId, NODE_WS_PATH } = await import('@vantage/shared-protocol');
  const { base, tokens } = await new Promise<{ base: string; tokens: string[] }>((resolve) => process.once('message', resolve as never));
  const sockets: SimSocket[] = [];
  let batch = 0;
  const connectOne = (token: string, i: number) => new Promise<string>((resolve, reject) => {
    const ws = new WebSocket(base.replace(/^http/, 'ws') + NODE_WS_PATH, { headers: { authorization: `Bearer ${token}` } });
    sockets.push(ws);
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'enroll', protocol_version: 1, agent_version: 'bench', hostname: `sim-${i}`, capabilities: ['tcp'] })));
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'welcome') resolve(m.node_id);
      else if (m.type === 'heartbeat') ws.send(JSON.stringify({ type: 'heartbeat', sent_at: Date.now() }));
      else if (m.type === 'task.run') {
        const now = new Date().toISOString();
        ws.send(JSON.stringify({ type: 'task.ack', task_id: m.task_id, accepted: true }));
        ws.send(JSON.stringify({
          type: 'result.batch', batch_id: batch++, results: [{
            result_id: newId('result'), task_id: m.task_id, monitor_id: null, type: 'tcp', started_at: now, finished_at: now,
            success: true, error: null, error_class: null, output: { resolved_address: '198.18.0.10', port: 443, connect_ms: 0.3, state: 'open' },
          }],
        }));
      }
    });
  });
  const ids: string[] = [];
  for (let i = 0; i < tokens.length; i += 50) ids.push(...await Promise.all(tokens.slice(i, i + 50).map((tok, j) => connectOne(tok, i + j))));
  process.send!({ ready: ids });
  process.once('message', () => { for (const ws of sockets) ws.close(); setTimeout(() => process.exit(0), 200); });
}

// ───────────────────────────── parent: control plane + measurements ─────────────────────────────
async function main(): Promise<void> {
  const { newId, newSecret } = await import('@vantage/shared-protocol');
  const { testApp, call } = await import('../../control-plane/src/test-support/app.js');
  const { insertEnrollmentToken } = await import('../../control-plane/src/db/enrollment-tokens.js');
  const { secretHash } = await import('../../control-plane/src/hub/secrets.js');
  const n_nodes = Number(values.nodes);
  const iterations = Number(values.iterations);
  const burst = Number(values.burst);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) console.error('note: run with node --expose-gc for stable memory figures');

  const teardowns: Array<() => unknown> = [];
  const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
  let child: ReturnType<typeof fork> | undefined;
  try {
    const { app, sql, url } = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'], instance_id: 'bench', rate_limit_anonymous: 1e9, rate_limit_keyed: 1e9 } });
    const user_id = newId('user');
    const tokens: string[] = [];
    for (let i = 0; i < n_nodes; i++) {
      const token = newSecret('enrollment_token');
      tokens.push(token);
      await insertEnrollmentToken(sql, {
        id: newId('enrollment_token_record'), user_id, token_hash: secretHash(token), preview: 'ent_…', label: null,
        country_code: null, declared_province: null, city_id: null, operator: null, sponsor_user_id: null, ttl_hours: 1,
      });
    }
    gc?.();
    const m0 = process.memoryUsage();
    child = fork(fileURLToPath(import.meta.url), ['--sim-nodes'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const started = performance.now();
    child.send({ base: url, tokens });
    const node_ids = await new Promise<string[]>((resolve, reject) => {
      child!.once('message', (m: { ready: string[] }) => resolve(m.ready));
      child!.once('exit', (code) => reject(new Error(`simulated nodes exited ${code}`)));
    });
    const enroll_s = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    gc?.();
    const m1 = process.memoryUsage();
    const heap = m1.heapUsed + m1.external - (m0.heapUsed + m0.external);

    const pick = (k: number) => [...node_ids].sort(() => Math.random() - 0.5).slice(0, k);
    const probe = async (k: number): Promise<string> => {
      const res = await call(app, 'POST', '/v1/probe/tcp', { body: { target: '198.18.0.10:443', node_ids: pick(k) } });
      if (res.status !== 202) throw new Error(`probe refused: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data.task_id;
    };
    const lastStored = async (group: string, k: number): Promise<number> => {
      for (;;) {
        const [row] = await sql<{ n: number; last: Date | null }[]>`SELECT count(*)::int AS n, max(stored_at) AS last FROM probe_results WHERE group_id = ${group}`;
        if (row!.n >= k) return row!.last!.getTime();
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const fanout = async (k: number) => {
      const ms: number[] = [];
      for (let i = 0; i < iterations; i++) {
        const t0 = Date.now();
        const group = await probe(k);
        ms.push((await lastStored(group, k)) - t0);
      }
      ms.sort((a, b) => a - b);
      const q = (p: number) => ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)]!;
      return { probes: iterations, p50_ms: q(0.5), p99_ms: q(0.99), max_ms: ms[ms.length - 1] };
    };
    await fanout(10); // warm-up
    const fanout_10 = await fanout(10);
    const fanout_100 = await fanout(Math.min(100, n_nodes));

    const k = Math.min(100, n_nodes);
    const t0 = performance.now();
    const groups = await Promise.all(Array.from({ length: burst }, () => probe(k)));
    await Promise.all(groups.map((g) => lastStored(g, k)));
    const burst_s = (performance.now() - t0) / 1000;

    console.log(JSON.stringify({
      nodes: n_nodes,
      enroll_s: Number(enroll_s.toFixed(2)),
      memory_per_node_bytes: { heap_and_external: Math.round(heap / n_nodes), rss: Math.round((m1.rss - m0.rss) / n_nodes) },
      added_latency_post_to_last_result: { fanout_10, fanout_100 },
      throughput: { probes: burst, tasks: burst * k, seconds: Number(burst_s.toFixed(2)), tasks_per_s: Math.round((burst * k) / burst_s) },
    }, null, 2));
  } finally {
    child?.send('stop');
    await new Promise((r) => setTimeout(r, 500));
    for (const fn of teardowns) await fn();
  }
}
