/*
 * Starting from the build (pnpm build, NODE_ENV=production) beside starting from the sources
 * through tsx (the development launcher, the peer), interleaved in pairs:
 *
 *   node_modules/.bin/tsx test/bench/production-start-bench.ts [--runs 7]
 *
 * - control plane: launcher spawned → `GET /readyz` answers 200, ms, and its RSS then (MB), on
 *   one already migrated scratch database on the real Postgres (TEST_DATABASE_URL's server);
 * - agent: `node-agent version` from spawn to exit, ms;
 * - CPU seconds (user + system) of the control plane until ready.
 * Prints medians of each side, the ratio, and the load average before and after. Builds first
 * (installer/build-runtime.ts) so both sides run the same sources.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildRuntime } from '../../installer/build-runtime.js';
import { connect } from '../../control-plane/src/db/sql.js';
import { migrate } from '../../control-plane/src/db/migrate.js';
import { TEST_DATABASE_URL } from '../../control-plane/src/test-support/db.js';
import { freePort } from '../../control-plane/src/test-support/control-plane-process.js';
import { procStats } from './lib/proc-stats.js';
import { fmt, median } from './lib/stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CP_BIN = join(ROOT, 'control-plane/bin/control-plane.mjs');
const AGENT_BIN = join(ROOT, 'node-agent/bin/node-agent.mjs');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const RUNS = Number(values.runs);

type Side = 'build' | 'tsx';
const envOf = (side: Side): NodeJS.ProcessEnv => {
  const { NODE_OPTIONS: _ignored, NODE_ENV: _env, ...rest } = process.env;
  return side === 'build' ? { ...rest, NODE_ENV: 'production' } : rest;
};

async function controlPlaneStart(side: Side, database_url: string, dir: string): Promise<{ ready_ms: number; rss_mb: number; cpu_s: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [CP_BIN], {
    env: {
      ...envOf(side), VANTAGE_DATABASE_URL: database_url, VANTAGE_PORT: String(port), VANTAGE_HOST: '127.0.0.1', VANTAGE_DATA_DIR: dir,
      VANTAGE_SECRETS_KEY: SECRETS_KEY, VANTAGE_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) break;
      } catch { /* not listening yet */ }
      if (performance.now() - started > 180_000) throw new Error(`${side}: not ready within 180 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const ready_ms = performance.now() - started;
    const { rss_mb, cpu_s } = procStats(child.pid!);
    return { ready_ms, rss_mb, cpu_s };
  } finally {
    await new Promise<void>((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); });
  }
}

async function agentVersion(side: Side): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [AGENT_BIN, 'version'], { env: envOf(side), stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${side}: node-agent version exited ${code}`))));
  });
  return performance.now() - started;
}

const SECRETS_KEY = randomBytes(32).toString('hex');
const load_before = loadavg();
await buildRuntime();
const name = `vantage_bench_start_${randomBytes(4).toString('hex')}`;
const admin = connect(TEST_DATABASE_URL, 1);
await admin.unsafe(`CREATE DATABASE ${name}`);
const url = Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${name}` }).toString();
const dir = mkdtempSync(join(tmpdir(), 'vantage-start-bench-'));
try {
  const sql = connect(url, 2);
  await migrate(sql);
  await sql.end({ timeout: 5 });
  const results: Record<Side, { ready: number[]; rss: number[]; cpu: number[]; agent: number[] }> = {
    build: { ready: [], rss: [], cpu: [], agent: [] }, tsx: { ready: [], rss: [], cpu: [], agent: [] },
  };
  // One warm-up of each (file cache), then pairs in alternating order.
  await controlPlaneStart('build', url, dir);
  await controlPlaneStart('tsx', url, dir);
  for (let i = 0; i < RUNS; i++) {
    const order: Side[] = i % 2 === 0 ? ['build', 'tsx'] : ['tsx', 'build'];
    for (const side of order) {
      const cp = await controlPlaneStart(side, url, dir);
      results[side].ready.push(cp.ready_ms);
      results[side].rss.push(cp.rss_mb);
      results[side].cpu.push(cp.cpu_s);
      results[side].agent.push(await agentVersion(side));
    }
  }
  const load_after = loadavg();
  const row = (label: string, key: 'ready' | 'rss' | 'cpu' | 'agent', digits: number) => {
    const b = median(results.build[key]);
    const p = median(results.tsx[key]);
    return `| ${label} | ${fmt(b, digits)} | ${fmt(p, digits)} | ${fmt(b / p, 2)} |`;
  };
  console.log(`production start-up, ${RUNS} interleaved pairs (medians); load average before ${load_before.map((l) => l.toFixed(2)).join(' ')}, after ${load_after.map((l) => l.toFixed(2)).join(' ')}; Node.js ${process.version}`);
  console.log('| figure | from the build (NODE_ENV=production) | through tsx (peer) | ratio |');
  console.log('|---|---|---|---|');
  console.log(row('control plane: spawn → /readyz 200, ms', 'ready', 0));
  console.log(row('control plane: RSS when ready, MB', 'rss', 0));
  console.log(row('control plane: CPU until ready, s', 'cpu', 2));
  console.log(row('agent: `node-agent version`, spawn → exit, ms', 'agent', 0));
} finally {
  rmSync(dir, { recursive: true, force: true });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end({ timeout: 5 });
}
