import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { createAdaptorServer } from '@hono/node-server';
import { createApp } from './app.js';
import { loadConfig } from './config/index.js';
import { publicBaseUrl } from './config/public-url.js';
import { SecretsKeyRefused, settleSecretsKey } from './secrets/key-check.js';
import { secretBoxOf } from './secrets/secret-box.js';
import { sweepHeaderSecrets } from './monitors/secrets-sweep.js';
import { applyPlatformNodeOwners } from './nodes/platform-nodes.db.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { connect, genericPlanClient, GENERIC_POOL_SIZE } from './db/sql.js';
import type { AppDeps } from './deps.js';
import { createHub, LISTEN_BACKLOG } from './hub/hub.js';
import { createLogger } from './log.js';
import { createResultSink } from './probes/sink.js';
import { startTaskSweeper } from './probes/sweeper.js';
import { startRateLimitPruner } from './jobs/prune-rate-limits.js';
import { startSessionPruner } from './jobs/prune-sessions.js';
import { startAccountPurger } from './accounts/account-deletion.job.js';
import { trackSockets } from './http/track-sockets.js';
import { createOutbound } from './outbound.js';
import { createAssignmentFeed } from './monitors/assignment-feed.js';
import { startPlacementJob } from './monitors/placement-job.js';
import { createCheckHooks } from './checks/hooks.js';
import { createCheckStore } from './checks/ingest.js';
import { withAgentObs } from './agent-obs/ingest.js';
import { createPlacementEngine } from './monitors/placement-engine.js';
import { withCertificateEvents } from './checks/certificate-events.js';
import { startCheckJobs } from './checks/jobs.js';
import { createVerdictWake } from './checks/verdict-wake.js';
import { startArtifactJobs } from './artifacts/retention.js';
import { createMaintenanceCalendar } from './alerting/maintenance-calendar.js';
import { ensurePartitions } from './checks/partitions.js';
import { webhookStateEvents } from './checks/webhook-events.js';
import { startHeartbeatJob } from './control-checks/heartbeat-job.js';
import { startDomainExpiryJob } from './control-checks/domain-expiry-job.js';
import { loadBootstrap } from './lookups/rdap-bootstrap.js';
import { closeViewCounter } from './blog/view-counter.js';
import { startAlertEngine } from './alerting/engine.js';
import { startStatusPageJobs } from './status-pages/jobs.js';
import { startVerdictJobs } from './verdicts/generate.js';
import { startComplianceJobs } from './compliance/report-job.js';
import { startBillingJobs } from './billing/renewal-job.js';
import { accountRetention } from './billing/check-retention.js';
import { lateOutageListener } from './alerting/engine-hook.js';
import { createMetrics } from './metrics/registry.js';
import { withResultMetrics } from './metrics/result-metrics.js';
import { registerScrapeGauges } from './metrics/scrape-gauges.js';
import { createOpsState } from './metrics/ops-state.js';
import { startMcpListener } from './mcp/listener.js';
import { startProvisioning } from './as-code/provision.js';
import { startPayloadRetention } from './mcp/payload-retention.js';
import { startCertificateJobs } from './certificates/order-jobs.js';

// Entry point: configuration is read once here and passed down; the secrets key comes from
// VANTAGE_SECRETS_KEY or, without it, from the key file in the data folder, and is settled
// against the database's key check once migrations have run (secrets/key-check.ts).
const config = loadConfig(process.env);
const log = createLogger(config.log_level);

let embedded: EmbeddedPostgres | undefined;
if (!config.database_url) {
  embedded = await startEmbeddedPostgres(config.data_dir, { shared_buffers_mb: config.embedded_shared_buffers_mb });
  log.info({ data_dir: config.data_dir }, 'no database URL set: using embedded Postgres (single instance)');
}
// The embedded PGlite is one backend behind pglite-socket: several client connections interleave
// their extended-protocol messages ("portal does not exist" under load), so embedded mode uses a
// single connection and queries queue in the client. A real server gets a pool.
const POOL_SIZE = embedded ? 1 : 10;
const sql = connect(config.database_url ?? embedded!.url, POOL_SIZE, log.child({ module: 'db' }));
// Automatic node picks run on generic plans (db/sql.ts genericPlanClient); embedded mode has one connection.
const generic_sql = embedded ? sql : genericPlanClient(config.database_url!, log.child({ module: 'db' }));
const endDatabase = (timeout: number) => Promise.all([...new Set([sql, generic_sql])].map((client) => client.end({ timeout })));
const applied = await migrate(sql);
if (applied.length > 0) log.info({ applied }, 'migrations applied');
// A key that cannot open the database's secrets stops the start (never a second key for one database).
try {
  config.secrets_key = await settleSecretsKey(sql, config, log.child({ module: 'secrets' }));
} catch (err) {
  if (!(err instanceof SecretsKeyRefused)) throw err;
  log.fatal({ err }, `cannot start: ${err.message}`);
  await endDatabase(1);
  await embedded?.close();
  process.exit(1);
}
// Platform nodes (trusted with every account's secret headers) follow VANTAGE_PLATFORM_NODE_OWNERS.
const platform = await applyPlatformNodeOwners(sql, config.platform_node_owners);
if (platform.marked + platform.unmarked > 0) log.info({ ...platform, owners: config.platform_node_owners }, 'platform nodes follow VANTAGE_PLATFORM_NODE_OWNERS');
// Check history partitions for today and the days ahead exist before the first result arrives (else
// rows wait in the DEFAULT partitions until the partition job makes them: never fatal).
await ensurePartitions(sql).catch((err: unknown) => log.warn({ err }, 'check partitions not created now; the partition job retries'));

// A stable instance id (host:port) lets a restarted instance release the nodes its previous run
// held (hub crash recovery); hostname-pid, the hub's own default, would change on every restart.
const base = { config: { ...config, instance_id: config.instance_id ?? `${hostname()}:${config.port}` }, sql, generic_sql, log };
// Node hub and result sink (probe tasks), as contracts.ts defines them.
// Outbound delivery (webhook events, e-mail): queue side for the app, worker started after listen.
const outbound = createOutbound(base);
// Monitor results are accepted from the nodes a monitor is placed on; the feed sends each held
// node its assignments (full set after hello, deltas when placement changes them).
// Monitor check results go to the check history (checks/ingest.ts) in the sink's transaction, and
// certificates close to expiry in them queue `ssl.expiring` in the same transaction.
// A stored batch that leaves a round judgeable wakes this instance's verdict job (checks/verdict-wake.ts).
const verdictWake = createVerdictWake();
// Prometheus metrics (docs/operators/metrics.md): stored results count after commit, monitor results feed the monitor series.
const metrics = createMetrics(config);
const ops = createOpsState();
// Results of agent-obs monitors also record their events, cost and budget (agent-obs/ingest.ts).
const agentObsPlacement = createPlacementEngine(base);
const results = withResultMetrics(createResultSink({
  ...base,
  checks: withAgentObs(withCertificateEvents(createCheckStore({ ...base, wake: verdictWake }), outbound.events), { ...base, mail: outbound.mail, placeNow: (id) => agentObsPlacement.placeNow(id) }),
}), metrics);
const feed = createAssignmentFeed(base);
const hub = createHub({ ...base, results, assignments: feed });
registerScrapeGauges(metrics, { sql, hub, pools: embedded ? { main: POOL_SIZE } : { main: POOL_SIZE, generic: GENERIC_POOL_SIZE }, log });
const deps = { ...base, results, hub, events: outbound.events, mail: outbound.mail, connector: outbound.connector, metrics, ops };
const app = createApp(deps satisfies AppDeps);

// Built first, listening last: node statuses are recovered and LISTEN runs before the first request.
const server = createAdaptorServer({ fetch: app.fetch }) as Server;
// A request must have sent its headers within 20 s (slowly trickled headers hold a socket no
// longer), and be received whole within 60 s (bodies are at most 32 KB; of a heartbeat check-in,
// the first 10 KB are read and the rest is discarded after the answer).
server.headersTimeout = 20_000;
server.requestTimeout = 60_000;
// Every socket, including upgraded node sockets and upgrades still being decided, which
// server.close() waits for but closeAllConnections() does not reach: shutdown destroys them.
const sockets = trackSockets(server);

server.on('error', (err) => {
  log.fatal({ err }, 'cannot listen');
  void endDatabase(1).finally(() => embedded?.close()).finally(() => process.exit(1));
});

// WebSocket upgrades at /v1/nodes/connect; crash recovery and LISTEN start in ready().
hub.attach(server);
await hub.ready();
await feed.start();
if (config.provision_files && !config.provision_api_key) log.error('VANTAGE_PROVISION_FILES is set without VANTAGE_PROVISION_API_KEY (the account to apply them into): no provisioning');
// Channel secrets of provisioned files are `{ env: NAME }` references: the environment is read here, once.
const provisionEnv = { ...process.env };
let provisioning: ReturnType<typeof startProvisioning> | null = null;
// A raised backlog absorbs every node reconnecting at once after a restart (hub.ts LISTEN_BACKLOG).
server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }, () => {
  const info = server.address() as { address: string; port: number; family: string };
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  log.info({ url: `http://${host}:${info.port}`, public_url: config.public_url, instance_id: base.config.instance_id }, 'control plane listening');
  ops.listening = true;
  // Monitoring-as-code files (VANTAGE_PROVISION_FILES) applied through this instance's own API.
  if (config.provision_files && config.provision_api_key) {
    const self = info.address === '0.0.0.0' ? '127.0.0.1' : info.address === '::' ? '[::1]' : host;
    provisioning = startProvisioning({
      pattern: config.provision_files, api_key: config.provision_api_key, prune: config.provision_prune, poll_ms: config.provision_poll_ms,
      base_url: `http://${self}:${info.port}`, env: provisionEnv, log,
    });
  }
  // Links handed out (check-in URLs, artifact URLs, e-mail links) come from configuration only, never a request's Host.
  if (!config.public_url) {
    log.warn({ public_base_url: publicBaseUrl(config) }, 'VANTAGE_PUBLIC_URL is not set: heartbeat check-in URLs, signed artifact URLs and e-mail links point at this listening address, which clients elsewhere may not reach; set it to the URL clients use');
  }
});
// Header secrets stored in plain text (rows from before sealing) or under a rotated-out key are
// sealed with the current key (rows claimed with SKIP LOCKED: any number of instances).
void sweepHeaderSecrets(sql, secretBoxOf(config), log.child({ module: 'monitors.secrets' }))
  .then((r) => { if (r.resealed + r.failed > 0) log.info(r, 'monitor header secrets sealed with the current key'); })
  .catch((err: unknown) => log.error({ err }, 'monitor header secrets sweep failed; it runs again at the next start'));
// Ends tasks whose nodes stayed silent past timeout + grace (claimed with SKIP LOCKED: any number of instances).
const stopSweeper = startTaskSweeper(base);
const stopPruner = startRateLimitPruner(base);
// Ended sessions and their refresh-token history, a week after they end (any number of instances).
const stopSessionPruner = startSessionPruner(base);
// Accounts past their deletion grace period, purged with what they own (docs/api/accounts.md "Account lifecycle").
const stopAccountPurger = startAccountPurger({ ...base, hub });
// Places monitors on nodes and moves them off nodes gone past the grace (queue claimed with SKIP LOCKED: any number of instances).
const placementJob = startPlacementJob(base);
// Judges rounds and records monitor state changes (webhook events queued in the same transaction),
// and runs the partition, rollup and retention jobs (claimed with SKIP LOCKED: any number of instances).
const checkHooks = createCheckHooks(log);
checkHooks.onStatePass(webhookStateEvents(outbound.events));
// Outages learnt late (already over) are recorded as resolved alert events without paging.
checkHooks.onStatePass(lateOutageListener());
// Rounds a maintenance window covers count as maintenance (left out of uptime).
// Raw checks (and the browser-check artifacts they name) are kept as long as each account's plan says (billing/check-retention.ts).
const rawCheckRetention = accountRetention(base);
const checkJobs = startCheckJobs({ ...base, hooks: checkHooks, maintenance: createMaintenanceCalendar(), wake: verdictWake, retention: rawCheckRetention });
// Deletes browser-check artifacts (HAR, screenshots) no kept check needs (claimed with SKIP LOCKED).
const artifactJobs = startArtifactJobs({ ...base, retention: rawCheckRetention });
// Control-plane checks: missed heartbeat check-ins, and domain registry look-ups (RDAP servers from
// the RFC 9224 bootstrap file, VANTAGE_RDAP_BOOTSTRAP_FILE to use a refreshed copy; every registry
// connection through the outbound connector and its address policy); both claimed with SKIP LOCKED.
const heartbeatJob = startHeartbeatJob({ ...base, events: outbound.events });
const domainExpiryJob = startDomainExpiryJob({ ...base, events: outbound.events }, { bootstrap: loadBootstrap(config.rdap_bootstrap_file), connector: outbound.connector });
// Opens, escalates and resolves alert events (steps claimed with SKIP LOCKED: any number of instances).
const alertEngine = startAlertEngine({ ...base, events: outbound.events });
// Status page incidents opened and resolved from alert events, and maintenance notices to subscribers (once, any number of instances).
const statusPageJobs = startStatusPageJobs({ ...base, mail: outbound.mail });
// Verdict reports generated, signed and announced (orders claimed with SKIP LOCKED: any number of instances).
const verdictJobs = startVerdictJobs({ ...base, mail: outbound.mail });
const complianceJobs = startComplianceJobs(base);
// Renewal invoices of manual plan subscriptions, their moves to past_due and expired, and an e-mail
// to the owner for each (claimed with SKIP LOCKED).
const billingJobs = startBillingJobs({ ...base, mail: outbound.mail });
// The MCP entry point on its own listener (VANTAGE_MCP_PORT, path /mcp; docs/api/mcp.md), and the
// clearing of raw tool-call payloads 7 days after their call.
const mcpListener = config.mcp_port === undefined ? null : await startMcpListener(deps, config.host, config.mcp_port);
if (mcpListener) log.info({ url: mcpListener.url }, 'MCP entry point listening');
const mcpRetention = startPayloadRetention(base);
// Certificate order steps over ACME, DNS credential health checks (claimed with SKIP LOCKED and a lease)
// and issued certificates' expiry notices (certificate.expiring and an e-mail, queued with the claim).
const certificateJobs = startCertificateJobs({ ...base, box: secretBoxOf(config), events: outbound.events, mail: outbound.mail });
// Claims due deliveries (SKIP LOCKED with a lease: any number of instances); releases this instance's claims of a previous run first.
await outbound.start();

let closing = false;
/**
 * Stop within `shutdown_timeout_ms` whatever clients do: stop accepting, close node sockets with
 * 4008 and idle keep-alive connections at once, give open requests and streams
 * `shutdown_grace_ms`, then destroy every socket left; a hard deadline exits regardless.
 */
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  ops.draining = true; // GET /readyz answers 503 from here on
  log.info({ signal }, 'shutting down');
  setTimeout(() => {
    log.error({ open_sockets: sockets.size, timeout_ms: config.shutdown_timeout_ms }, 'shutdown deadline reached: exiting');
    process.exit(1);
  }, config.shutdown_timeout_ms).unref();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  stopPruner();
  stopSessionPruner();
  stopAccountPurger();
  mcpRetention.stop();
  const cut = setTimeout(() => {
    server.closeAllConnections();
    for (const socket of sockets) socket.destroy();
  }, config.shutdown_grace_ms);
  await Promise.all([
    stopSweeper(),
    placementJob.stop().then(() => feed.stop()),
    checkJobs.stop(),
    artifactJobs.stop(),
    certificateJobs.stop(),
    heartbeatJob.stop(),
    domainExpiryJob.stop(),
    alertEngine.stop(),
    statusPageJobs.stop(),
    verdictJobs.stop(),
    complianceJobs.stop(),
    billingJobs.stop(),
    provisioning?.stop(),
    mcpListener?.close().catch((err) => log.error({ err }, 'MCP listener close failed')),
    hub.close().catch((err) => log.error({ err }, 'hub close failed')),
    outbound.close(config.shutdown_grace_ms).catch((err) => log.error({ err }, 'delivery worker close failed')),
  ]);
  server.closeIdleConnections();
  await closed;
  clearTimeout(cut);
  // Blog reads counted since the last flush (blog/view-counter.ts), written before the pool ends.
  await closeViewCounter(sql);
  await endDatabase(5);
  await embedded?.close();
  log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
