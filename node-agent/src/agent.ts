import os from 'node:os';
import path from 'node:path';
import { HELLO_TASKS_HELD_MAX, PROTOCOL_VERSION, intersectPolicies, isId, isSecret, type NodeCapability, type NodeMessage, type ResultEnvelope, type TargetPolicy } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import { ClockOffset } from './assignments/clock.js';
import { AssignmentScheduler, assignmentTimeoutMs } from './assignments/scheduler.js';
import { AssignmentStore } from './assignments/store.js';
import { browserAdvertised, browserExecutable } from './browser/advertise.js';
import { DEFAULT_CHROMIUM_PATH } from './browser/capability.js';
import { LazyBrowserPool } from './browser/lazy-pool.js';
import { createMonitorCheckRunner, monitorCheckJob, type RunMonitorCheckFn } from './checks/index.js';
import { forgetSpentToken } from './config/forget-token.js';
import type { AgentConfig } from './config/schema.js';
import type { BackoffOptions } from './connection/backoff.js';
import { Connection } from './connection/client.js';
import { dispatch, rejectInvalid } from './connection/dispatch.js';
import { enrollConfirm } from './connection/enroll.js';
import { AgentFatalError } from './connection/errors.js';
import { ArtifactSpool } from './outbox/artifact-spool.js';
import { ArtifactUploader } from './outbox/artifact-uploader.js';
import { openResultAudit } from './outbox/audit.js';
import { Outbox } from './outbox/outbox.js';
import { AgentMetrics } from './metrics/agent-metrics.js';
import { startMetricsListener, type MetricsListener } from './metrics/listener.js';
import { ResultWriter } from './outbox/result-writer.js';
import { OutboxSender, type SenderOptions } from './outbox/sender.js';
import { detectCapabilities } from './probes/capabilities.js';
import { prepareKernelStamps } from './probes/timestamps/kernel.js';
import type { StateDb } from './state/db.js';
import { markConnected, readIdentity, saveIdentity } from './state/identity.js';
import { Secret } from './secret.js';
import { checkJob, type RunCheckFn } from './tasks/check-job.js';
import { ONCE_MEMORY, TaskQueue } from './tasks/queue.js';

export interface AgentDeps {
  config: AgentConfig;
  db: StateDb;
  log: Logger;
  /** The probe engine (probes/runner.ts runCheck in production). */
  runCheck: RunCheckFn;
  /** The monitor check engine (default: checks/index.ts createMonitorCheckRunner() with the agent's browser pool). */
  runMonitorCheck?: RunMonitorCheckFn;
  agent_version: string;
  /** `run`: connect and work; `enroll`: exchange the token, store the identity, stop. */
  mode?: 'run' | 'enroll';
  hostname?: string;
  backoff?: BackoffOptions;
  /** How often `outbox.stats` is sent and the age bound applied, ms (default 60 s). */
  housekeeping_interval_ms?: number;
  sender?: Pick<SenderOptions, 'max_in_flight' | 'batch_max' | 'ack_timeout_ms'>;
  /**
   * Check types to advertise; default: what this process can run (probes/capabilities.ts: ping
   * and traceroute only with a raw ICMP socket; `browser` only when Chromium starts, browser/advertise.ts).
   */
  capabilities?: NodeCapability[];
  /**
   * The JSON config file the config was read from (config/load.ts), if any: once the node holds
   * its credential, a `token` there equal to the configured one is spent and removed from it.
   */
  config_file?: string | null;
}

/** How {@link Agent.start} ended. */
export type AgentExit =
  | { kind: 'stopped' }
  | { kind: 'enrolled'; node_id: string; already: boolean }
  | { kind: 'fatal'; error: AgentFatalError };

export interface Agent {
  /** Connect and work until stopped, enrolled (enroll mode) or refused for good. Never rejects. */
  start(): Promise<AgentExit>;
  /** Soft shutdown: stop scheduling, finish running tasks for up to `grace_ms`, flush the outbox, close. */
  stop(grace_ms?: number): Promise<void>;
  readonly outbox: Outbox;
  readonly assignments: AssignmentStore;
  readonly queue: TaskQueue;
  readonly scheduler: AssignmentScheduler;
  /** Where the metrics listener answers (`metrics_port` set and listening), else null. */
  metricsAddress(): { address: string; port: number } | null;
}

/**
 * Build the node agent from its parts without starting anything: state DB,
 * outbox + sender, task queue, assignment store + scheduler, and the control plane connection.
 * Delivery rule (docs/architecture/node-agent.md): every result goes to the outbox first, then the sender streams it.
 */
export function createAgent(deps: AgentDeps): Agent {
  const { config, db } = deps;
  const log = deps.log.child({ module: 'agent' });
  const mode = deps.mode ?? 'run';
  // The operator's policy. Every check runs under its intersection with the requester's policy
  // that the task or assignment carries: private targets need both to allow them.
  const policy: TargetPolicy = { allow_private: config.allow_private, allow_cidrs: config.allow_cidrs };
  const checkPolicy = (requester: TargetPolicy): TargetPolicy => intersectPolicies(policy, requester);
  const capabilities: NodeCapability[] = deps.capabilities ?? (() => {
    const found = detectCapabilities();
    for (const m of found.missing) log.warn({ type: m.type, reason: m.reason }, 'check type not advertised');
    return found.capabilities;
  })();
  /** `browser` is added at start, once Chromium was seen to launch (not in enroll mode: the first hello says it). */
  const detectBrowserCapability = async () => {
    if (deps.capabilities || mode !== 'run' || capabilities.includes('browser')) return;
    if (await browserAdvertised(config.browser_executable, log)) capabilities.push('browser');
  };
  // The node's one browser, launched by the first browser check and closed at shutdown.
  const browserPool = new LazyBrowserPool({
    executable_path: browserExecutable(config.browser_executable) ?? DEFAULT_CHROMIUM_PATH, concurrency: config.browser_concurrency, log: deps.log,
  });
  // Browser artifacts wait here for upload (docs/architecture/node-agent.md "Artifacts"), beside the state DB.
  const spool = config.artifact_spool_max_bytes > 0 && db.name && db.name !== ':memory:'
    ? new ArtifactSpool(path.join(path.dirname(db.name), 'artifacts'), config.artifact_spool_max_bytes) : null;
  const outbox = new Outbox(db, { max_results: config.outbox_max_results, max_age_s: config.outbox_max_age_s }, Date.now, (shas) => {
    for (const sha of shas) spool?.remove(sha);
  });
  const assignments = new AssignmentStore(db);
  const queue = new TaskQueue({ concurrency: config.concurrency, queue_max: config.queue_max });
  // Results from before a restart still in the outbox: their tasks are never run a second time.
  queue.remember(outbox.taskIds(ONCE_MEMORY.max));
  let connection: Connection | null = null;
  const send = (m: NodeMessage): boolean => connection?.send(m) ?? false;
  const sender = new OutboxSender({ outbox, send: (f) => connection?.sendFrame(f) ?? false, log: log.child({ module: 'agent.outbox' }), ...deps.sender });
  const uploader = spool ? new ArtifactUploader({
    outbox, spool, log: log.child({ module: 'agent.artifacts' }), onReleased: () => sender.pump(),
    target: () => {
      const held = readIdentity(db);
      const control_plane_url = config.control_plane_url ?? held?.control_plane_url;
      return held && control_plane_url ? { control_plane_url, credential: held.credential } : null;
    },
  }) : null;

  // Our clock against the control plane's (measured over the link): rounds start on its clock.
  const clock = new ClockOffset();
  // Prometheus metrics only when the listener is configured (docs/operators/metrics.md "Node agent").
  const metrics = config.metrics_port !== undefined
    ? new AgentMetrics({ outbox, clock_offset_ms: () => clock.offset_ms, connected: () => connection?.connected ?? false }) : null;
  let metricsListener: MetricsListener | null = null;
  // Results go to the outbox in group commits (outbox/result-writer.ts), then to the sender.
  const writer = new ResultWriter({
    outbox, audit: openResultAudit(db, config.audit_results), log,
    onCommitted: (results, { dropped, held }) => {
      if (metrics) for (const r of results) metrics.produced(r);
      if (dropped > 0) log.warn({ dropped, max_results: config.outbox_max_results }, 'outbox full: oldest results dropped');
      sender.pump();
      if (held > 0) uploader?.kick();
    },
  });
  const deliver = (result: ResultEnvelope) => writer.write(result);
  const probeLog = deps.log.child({ module: 'probe' });
  const runMonitorCheck = deps.runMonitorCheck ?? createMonitorCheckRunner({ browser: browserPool, ...(spool ? { artifacts: spool } : {}) });
  const scheduler = new AssignmentScheduler({
    now: () => clock.serverNow(),
    // One check of assignment `a` for its round `scheduled_at` (when the fire time is the round).
    fire: (a, scheduled_at: string | number | Date = Date.now()) => {
      const r = queue.submit(`monitor:${a.monitor_id}`, monitorCheckJob({
        run: a, scheduled_at: new Date(scheduled_at).toISOString(), timeout_ms: assignmentTimeoutMs(a), runMonitorCheck, policy: checkPolicy(a.policy), log: probeLog, deliver,
      }));
      if (!r.accepted) log.warn({ monitor_id: a.monitor_id, reason: r.reason }, 'monitor run skipped');
      else if (r.duplicate) log.warn({ monitor_id: a.monitor_id }, 'monitor run skipped: previous run still going');
    },
  });
  const dispatchDeps = {
    send, queue, sender, assignments, scheduler, log,
    taskJob: (m: { task_id: string; timeout_ms: number; policy: TargetPolicy; check: Parameters<RunCheckFn>[0] }) => checkJob({
      check: m.check, timeout_ms: m.timeout_ms, owner: { task_id: m.task_id }, runCheck: deps.runCheck, policy: checkPolicy(m.policy), log: probeLog, deliver,
    }),
  };

  let finish: ((exit: AgentExit) => void) | null = null;
  let stopping: Promise<void> | null = null;
  let housekeeping: NodeJS.Timeout | null = null;
  /** An enrollment welcome was answered with enroll.confirm and enroll.confirmed has not come yet. */
  let confirming = false;

  const agentInfo = () => ({ protocol_version: PROTOCOL_VERSION, agent_version: deps.agent_version, hostname: deps.hostname ?? os.hostname(), ...(config.name ? { name: config.name } : {}) });
  const sendStats = () => send({ type: 'outbox.stats', ...outbox.stats() });
  /** Ad-hoc tasks this agent still holds, for `hello`: the control plane fails the others it had sent (lost in a restart). */
  const tasksHeld = (): { tasks_held?: string[] } => {
    const ids = [...new Set([...queue.keys().filter((k) => isId('probe_task', k)), ...outbox.taskIds(HELLO_TASKS_HELD_MAX + 1)])];
    return ids.length > HELLO_TASKS_HELD_MAX ? {} : { tasks_held: ids };
  };

  async function shutdown(grace_ms: number): Promise<void> {
    scheduler.stop();
    if (housekeeping) clearInterval(housekeeping);
    const aborted = await queue.drain(grace_ms);
    if (aborted > 0) log.warn({ aborted, grace_ms }, 'tasks aborted at shutdown');
    writer.flush();
    await browserPool.close();
    if (connection?.connected) {
      const flushed = await sender.flush(Math.min(5000, Math.max(1000, grace_ms / 2)));
      if (!flushed) log.info(outbox.stats(), 'outbox kept for the next start');
    }
    await uploader?.stop();
    await connection?.stop();
    await metricsListener?.close();
  }

  /** The node holds its credential: the token is never used again; take it out of the config file. */
  function forgetToken(): void {
    const file = deps.config_file;
    if (!file || !config.token) return;
    const r = forgetSpentToken(file, config.token);
    if (r.done === 'removed') log.info({ file }, 'the spent enrollment token was removed from the config file');
    else if (r.done === 'failed') log.warn({ file, reason: r.reason }, `the spent enrollment token is still in ${file}: remove its "token" field`);
  }

  async function start(): Promise<AgentExit> {
    const identity = readIdentity(db);
    if (mode === 'enroll' && identity) return { kind: 'enrolled', node_id: identity.node_id, already: true };
    if (!identity && !config.token) {
      return { kind: 'fatal', error: new AgentFatalError('not_enrolled', 'this node is not enrolled: give an enrollment token with --token ent_… (or VANTAGE_AGENT_TOKEN)') };
    }
    const control_plane_url = config.control_plane_url ?? identity?.control_plane_url;
    if (!control_plane_url) return { kind: 'fatal', error: new AgentFatalError('no_control_plane', 'no control plane URL: give --control-plane-url') };
    if (identity && config.token) {
      log.info({ node_id: identity.node_id }, 'already enrolled; the configured token is not used');
      forgetToken();
    }

    const dropped = outbox.pruneAge();
    if (dropped > 0) log.warn({ dropped, max_age_s: config.outbox_max_age_s }, 'outbox: results past their age dropped');
    await detectBrowserCapability();
    // Stopped while Chromium was being tried: nothing was started yet.
    if (stopping) {
      await stopping;
      return { kind: 'stopped' };
    }
    if (mode === 'run') {
      prepareKernelStamps(); // so that even the first ping or traceroute hop gets a kernel stamp
      scheduler.sync(assignments.list());
    }
    // Files of results dropped or never written while the agent was down; then upload the rest.
    if (spool) {
      const swept = spool.sweep(outbox.artifactDigests());
      if (swept > 0) log.info({ swept }, 'artifact spool: files no result needs deleted');
      if (mode === 'run') uploader?.kick();
    }
    if (metrics && mode === 'run') {
      try {
        metricsListener = await startMetricsListener({ metrics, host: config.metrics_host, port: config.metrics_port!, token: config.metrics_token, log });
        log.info({ host: metricsListener.address.address, port: metricsListener.address.port }, 'metrics listener at /metrics');
      } catch (err) {
        log.error({ err, host: config.metrics_host, port: config.metrics_port }, 'metrics listener cannot listen; running without it');
      }
    }
    housekeeping = setInterval(() => {
      const n = outbox.pruneAge();
      if (n > 0) log.warn({ dropped: n, max_age_s: config.outbox_max_age_s }, 'outbox: results past their age dropped');
      sendStats();
    }, deps.housekeeping_interval_ms ?? 60_000);

    const done = new Promise<AgentExit>((resolve) => { finish = resolve; });
    connection = new Connection({
      control_plane_url,
      log: deps.log.child({ module: 'agent.connection' }),
      backoff: deps.backoff,
      clock,
      greeting: () => {
        writer.flush(); // so that `hello` counts the results waiting for their commit as held
        const held = readIdentity(db);
        if (held) return { secret: held.credential, first: { type: 'hello', node_id: held.node_id, ...agentInfo(), capabilities, outbox: outbox.stats(), ...tasksHeld() } };
        return { secret: config.token!, first: { type: 'enroll', ...agentInfo(), capabilities } };
      },
      onWelcome: (w) => {
        const held = readIdentity(db);
        if (!held) {
          if (!w.credential || !isSecret('node_credential', w.credential)) {
            throw new AgentFatalError('enrollment_failed', 'the control plane accepted the token but sent no node credential');
          }
          saveIdentity(db, { node_id: w.node_id, credential: new Secret(w.credential), control_plane_url });
          log.info({ node_id: w.node_id, node_name: w.node_name }, 'enrolled');
          // Stored: now spend the token by proving it on this connection (connection/enroll.ts).
          confirming = send(enrollConfirm(w.node_id, w.credential));
        } else if (held.node_id !== w.node_id) {
          log.warn({ held: held.node_id, welcome: w.node_id }, 'control plane names another node id');
        }
        markConnected(db);
        metrics?.welcomed();
        log.info({ node_id: w.node_id }, 'connected to control plane');
        if (mode === 'enroll') {
          // Enroll mode ends once the token is spent (enroll.confirmed), or at once when it was already.
          if (!confirming) setImmediate(() => void stop(0));
          return;
        }
        sender.connected();
        uploader?.kick(true);
        sendStats();
      },
      onMessage: (m) => {
        if (m.type === 'enroll.confirmed') {
          confirming = false;
          log.info({ node_id: m.node_id }, 'enrollment confirmed; the token is spent');
          forgetToken();
          if (mode === 'enroll') setImmediate(() => void stop(0));
          return;
        }
        dispatch(m, dispatchDeps);
      },
      onInvalid: (json, error) => rejectInvalid(json, error, send),
      onDown: () => {
        metrics?.disconnected();
        sender.disconnected();
      },
    });
    connection.run().then(
      () => finish?.(mode === 'enroll' ? { kind: 'enrolled', node_id: readIdentity(db)?.node_id ?? '', already: false } : { kind: 'stopped' }),
      async (err: unknown) => {
        const error = err instanceof AgentFatalError ? err : new AgentFatalError('internal', String((err as Error)?.message ?? err));
        await shutdown(0);
        finish?.({ kind: 'fatal', error });
      },
    );
    const exit = await done;
    if (stopping) await stopping;
    return exit;
  }

  function stop(grace_ms = 10_000): Promise<void> {
    stopping ??= shutdown(grace_ms);
    return stopping;
  }

  const metricsAddress = () => (metricsListener ? { address: metricsListener.address.address, port: metricsListener.address.port } : null);
  return { start, stop, outbox, assignments, queue, scheduler, metricsAddress };
}
