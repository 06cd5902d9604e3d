/**
 * @vantage/node-agent: the probe node runtime (enrollment, connection, task queue, outbox,
 * assignments) and its CLI. Probes live under probes/ (runner.ts `runCheck`).
 */
export { createAgent, type Agent, type AgentDeps, type AgentExit } from './agent.js';
export { agentConfigSchema, CONFIG_DEFAULTS, type AgentConfig } from './config/schema.js';
export { loadConfig, ConfigError } from './config/load.js';
export { AgentFatalError } from './connection/errors.js';
export { backoffDelay, DEFAULT_BACKOFF } from './connection/backoff.js';
export { nodeSocketUrl } from './connection/url.js';
export { Outbox, type OutboxStats } from './outbox/outbox.js';
export { openStateDb, stateFile } from './state/db.js';
export { readIdentity } from './state/identity.js';
export { TaskQueue } from './tasks/queue.js';
export { Secret } from './secret.js';
export { createLogger } from './log.js';
export { runCli } from './cli/commands.js';
