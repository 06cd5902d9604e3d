/*
 * Node-agent benchmark: outbox absorb rate, replay/drain of 100,000 buffered results to an
 * in-process control-plane stub, and the idle agent's RSS and CPU. Prints figures; asserts nothing.
 *
 *   cd /work/main && npx tsx test/bench/agent-bench.ts [--results 100000] [--idle-s 20]
 *
 * The agent runs as a real child process (`node-agent run`, through the tsx loader as in
 * development); the stub validates every result with the shared zod schema and acks it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { newSecret } from '@vantage/shared-protocol';
import { ControlPlaneStub } from '../../node-agent/src/connection/test-support/control-plane-stub.js';
import { Outbox } from '../../node-agent/src/outbox/outbox.js';
import { tcpResult } from '../../node-agent/src/outbox/test-results.js';
import { openStateDb } from '../../node-agent/src/state/db.js';
import { saveIdentity } from '../../node-agent/src/state/identity.js';
import { procStats } from './lib/proc-stats.js';
import { Secret } from '../../node-agent/src/secret.js';

const { values } = parseArgs({ options: { results: { type: 'string', default: '100000' }, 'idle-s': { type: 'string', default: '20' } } });
const N = Number(values.results);
const IDLE_S = Number(values['idle-s']);
const BIN = path.resolve('node-agent/bin/node-agent.mjs');

async function until(cond: () => boolean, timeout_ms: number): Promise<void> {
  const deadline = Date.now() + timeout_ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bench-'));
  const cp = new ControlPlaneStub();
  await cp.listen();
  try {
    // 1. Outbox absorb: one durable transaction per result, as the agent writes them.
    const dir = path.join(tmp, 'state');
    const db = openStateDb(dir);
    const outbox = new Outbox(db, { max_results: N + 1000, max_age_s: 7 * 86400 });
    const absorb_n = Math.min(N, 20_000);
    let t0 = performance.now();
    for (let i = 0; i < absorb_n; i++) outbox.add(tcpResult());
    const absorb_s = (performance.now() - t0) / 1000;
    console.log(`outbox absorb: ${absorb_n} results one transaction each in ${absorb_s.toFixed(2)} s = ${Math.round(absorb_n / absorb_s)} results/s`);

    // Fill the rest in bulk (setup only), enroll the state DB with the stub.
    db.transaction(() => { for (let i = absorb_n; i < N; i++) outbox.add(tcpResult()); })();
    const credential = newSecret('node_credential');
    const node_id = 'n_0000000000aaaaaaaaaaaaaaaa';
    cp.credentials.set(credential, node_id);
    saveIdentity(db, { node_id, credential: new Secret(credential), control_plane_url: cp.url });
    const pending = outbox.stats().pending;
    db.close();
    console.log(`buffered: ${pending} results, state DB ${(fs.statSync(path.join(dir, 'state.db')).size / 1e6).toFixed(1)} MB`);

    // 2. Replay: start the agent process; time until every result reached the stub and was acked.
    t0 = performance.now();
    const child = spawn(process.execPath, [BIN, 'run', '--state-dir', dir, '--log-level', 'warn', '--outbox-max-results', String(N + 1000)], { stdio: ['ignore', 'inherit', 'inherit'] });
    let connected_ms = 0;
    cp.once('connection', () => { connected_ms = performance.now() - t0; });
    await until(() => cp.results.size >= N, 600_000);
    const delivered_ms = performance.now() - t0;
    const reader = openStateDb(dir, { must_exist: true });
    await until(() => (reader.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n === 0, 120_000);
    const drained_ms = performance.now() - t0;
    reader.close();
    const replay_s = (drained_ms - connected_ms) / 1000;
    console.log(`replay: ${N} results; process start to connected ${(connected_ms / 1000).toFixed(2)} s; all delivered ${(delivered_ms / 1000).toFixed(2)} s; outbox empty ${(drained_ms / 1000).toFixed(2)} s`);
    console.log(`drain rate (connected → outbox empty): ${Math.round(N / replay_s)} results/s (duplicates seen by stub: ${cp.deliveries - cp.results.size})`);

    // 3. Idle: connected, no work, heartbeats only.
    await new Promise((r) => setTimeout(r, 3000));
    const a = procStats(child.pid!);
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const b = procStats(child.pid!);
    console.log(`idle agent (after replay): RSS ${b.rss_mb.toFixed(1)} MB; CPU ${(((b.cpu_s - a.cpu_s) / IDLE_S) * 100).toFixed(2)} % over ${IDLE_S} s`);
    child.kill('SIGTERM');
    await new Promise((r) => child.on('close', r));

    // 4. Idle from a fresh start (no replay history in the heap).
    const fresh = spawn(process.execPath, [BIN, 'run', '--state-dir', dir, '--log-level', 'warn'], { stdio: ['ignore', 'inherit', 'inherit'] });
    await new Promise((r) => cp.once('connection', r));
    await new Promise((r) => setTimeout(r, 3000));
    const c = procStats(fresh.pid!);
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const d = procStats(fresh.pid!);
    console.log(`idle agent (fresh start): RSS ${d.rss_mb.toFixed(1)} MB; CPU ${(((d.cpu_s - c.cpu_s) / IDLE_S) * 100).toFixed(2)} % over ${IDLE_S} s`);
    fresh.kill('SIGTERM');
    await new Promise((r) => fresh.on('close', r));
  } finally {
    await cp.kill();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
