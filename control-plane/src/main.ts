import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { createAdaptorServer } from '@hono/node-server';
import { createApp } from './app.js';
import { loadConfig } from './config/index.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { connect } from './db/sql.js';
import type { AppDeps } from './deps.js';
import { createHub } from './hub/hub.js';
import { createLogger } from './log.js';
import { createResultSink } from './tasks/sink.js';
import { startTaskSweeper } from './tasks/sweeper.js';
import { startRateLimitPruner } from './jobs/prune-rate-limits.js';

// Entry point: configuration is read once here and passed down (STYLE.md habit 5).
const config = loadConfig(process.env);
const log = createLogger(config.log_level);

let embedded: EmbeddedPostgres | undefined;
if (!config.database_url) {
  embedded = await startEmbeddedPostgres(config.data_dir);
  log.info({ data_dir: config.data_dir }, 'no database URL set: using embedded Postgres (single instance)');
}
// The embedded PGlite is one backend behind pglite-socket: several client connections interleave
// their extended-protocol messages ("portal does not exist" under load), so embedded mode uses a
// single connection and queries queue in the client. A real server gets a pool.
const POOL_SIZE = embedded ? 1 : 10;
const sql = connect(config.database_url ?? embedded!.url, POOL_SIZE);
const applied = await migrate(sql);
if (applied.length > 0) log.info({ applied }, 'migrations applied');

// A stable instance id (host:port) lets a restarted instance release the nodes its previous run
// held (hub crash recovery); hostname-pid, the hub's own default, would change on every restart.
const base = { config: { ...config, instance_id: config.instance_id ?? `${hostname()}:${config.port}` }, sql, log };
// Node hub (issue 6) and result sink (probe tasks), as agreed in the issue 6 contract.
const results = createResultSink(base);
const hub = createHub({ ...base, results });
const deps = { ...base, results, hub };
const app = createApp(deps satisfies AppDeps);

// Built first, listening last: node statuses are recovered and LISTEN runs before the first request.
const server = createAdaptorServer({ fetch: app.fetch }) as Server;

server.on('error', (err) => {
  log.fatal({ err }, 'cannot listen');
  void sql.end({ timeout: 1 }).finally(() => embedded?.close()).finally(() => process.exit(1));
});

// WebSocket upgrades at /v1/nodes/connect; crash recovery and LISTEN start in ready().
hub.attach(server);
await hub.ready();
server.listen(config.port, config.host, () => {
  const info = server.address() as { address: string; port: number; family: string };
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  log.info({ url: `http://${host}:${info.port}`, public_url: config.public_url, instance_id: base.config.instance_id }, 'control plane listening');
});
// Ends tasks whose nodes stayed silent past timeout + grace (claimed with SKIP LOCKED: any number of instances).
const stopSweeper = startTaskSweeper(base);
const stopPruner = startRateLimitPruner(base);

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  log.info({ signal }, 'shutting down');
  stopPruner();
  await stopSweeper();
  await hub.close().catch((err) => log.error({ err }, 'hub close failed'));
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
    // Open SSE streams would hold close() until their tasks end: cut them after a short wait.
    setTimeout(() => (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.(), 2000).unref();
  });
  await sql.end({ timeout: 5 });
  await embedded?.close();
  log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
