import type { Config } from '../config/index.js';
import { createCheckHooks } from '../checks/hooks.js';
import { startCheckJobs } from '../checks/jobs.js';
import { webhookStateEvents } from '../checks/webhook-events.js';
import { ensurePartitions } from '../checks/partitions.js';
import { httpResult, seedMonitor, seedNodes } from '../checks/test-support.js';
import { startReceiver } from '../delivery/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { lateOutageListener } from './engine-hook.js';
import { startAlertEngine } from './engine.js';
import { createMaintenanceCalendar } from './maintenance-calendar.js';

/*
 * The whole alert path as main.ts wires it, in one process, for the end-to-end alert test and the
 * alert benchmark: results handed to the real result sink (checks ingest), the real verdict job
 * judging rounds and changing monitor state, the alert engine, the delivery worker, and a real
 * HTTP receiver on loopback behind a webhook channel made through the API.
 */

interface Teardown { teardown(fn: () => unknown): void }

export const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** What a policy made through the API sets (besides its monitor and the channel). */
export interface PipelinePolicy {
  recovery_n?: number;
  delay_s?: number;
  fire_on_degraded?: boolean;
}

/**
 * Start the pipeline on a fresh test database. `config` overrides the app's (the verdict job's
 * `checks_decide_interval_ms`, delivery settings…); `engine_interval_ms` is the alert engine's
 * pass interval (main.ts: 1000). Loopback is allowed as an outbound address. `stop()` stops the
 * verdict job and the engine (also at teardown). The verdict job is woken by check ingest as in
 * main.ts (checks/verdict-wake.ts) unless `verdict_wake` is false (poll only: benchmarks' baseline).
 * The check partitions around today are made first, as main.ts makes them before it serves.
 */
export async function startAlertPipeline(t: Teardown, opts: { config?: Partial<Config>; engine_interval_ms?: number; verdict_wake?: boolean } = {}) {
  const ctx = await testApp(t, {
    config: { delivery_allow_cidrs: ['127.0.0.0/8'], checks_round_grace_ms: 120_000, ...opts.config },
    delivery: true,
  });
  // Today's check partitions exist before the first result, as main.ts makes them at start: else
  // results land in the DEFAULT partitions and the partition job's first run (a minute in) moves
  // them out under ACCESS EXCLUSIVE locks, stalling ingest and the verdict job meanwhile.
  await ensurePartitions(ctx.sql);
  const user = await registerUser(ctx.app);
  const receiver = await startReceiver(t);
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await call(ctx.app, method, path, { token: user.access_token, body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  const channel_id = (await api('POST', '/v1/alert-channels', { name: 'on-call hook', type: 'webhook', config: { url: receiver.url, secret: WEBHOOK_SECRET } })).id as string;
  // The verdict job's subscribers as main.ts subscribes them: webhook events, then the alert engine's.
  const hooks = createCheckHooks(ctx.deps.log);
  hooks.onStatePass(webhookStateEvents(ctx.outbound.events));
  hooks.onStatePass(lateOutageListener());
  const jobs = startCheckJobs({ ...ctx.deps, hooks, maintenance: createMaintenanceCalendar(), wake: opts.verdict_wake === false ? undefined : ctx.verdict_wake });
  const engine = startAlertEngine({ ...ctx.deps, events: ctx.outbound.events, mail: ctx.outbound.mail }, { interval_ms: opts.engine_interval_ms ?? 1000 });
  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= Promise.all([jobs.stop(), engine.stop()]).then(() => undefined));
  t.teardown(stop);

  return {
    ctx, user, receiver, channel_id, api, stop,
    /** The verdict job's hook registry (the alert engine's subscriber is on it): a test or benchmark may add its own. */
    hooks,
    /** Online nodes (placed monitors report from them). */
    nodes: (count: number) => seedNodes(ctx.sql, count),
    /**
     * A monitor of the account on `nodes` (ids, or that many new nodes) with `interval_s` (60) and
     * a policy made through the API paging the webhook channel. `age_ms`: how long ago it was
     * created and placed (default: checks/test-support.ts seedMonitor's, a week); the silent-rounds
     * job writes an empty round for each of its rounds since then whose deadline passed within
     * the last hour (checks/decide-silent.ts), so a monitor that must not go `no_data` before its
     * first report is made younger than its round deadline. @returns the monitor and its policy id
     */
    async monitor(o: { nodes: number | string[]; name?: string; interval_s?: number; policy?: PipelinePolicy; age_ms?: number }) {
      const m = await seedMonitor(ctx.sql, { user_id: user.user_id, nodes: o.nodes, interval_s: o.interval_s ?? 60, ...(o.age_ms !== undefined ? { age_ms: o.age_ms } : {}) });
      if (o.name) await ctx.sql`UPDATE monitors SET name = ${o.name} WHERE id = ${m.monitor_id}`;
      const policy = await api('POST', '/v1/alert-policies', { name: 'on-call', monitor_id: m.monitor_id, channel_ids: [channel_id], ...o.policy });
      return { ...m, policy_id: policy.id as string };
    },
    /**
     * The nodes' results of round `scheduled_at` handed to the result sink as each node sends
     * them: the first `failing` nodes failed (connection refused), the others succeeded.
     */
    async report(m: { monitor_id: string; node_ids: string[] }, scheduled_at: string, failing: number) {
      for (const [i, node_id] of m.node_ids.entries()) {
        const r = await ctx.deps.results.ingest(node_id, [httpResult(m.monitor_id, scheduled_at, { success: i >= failing })]);
        if (r.rejected.length > 0) throw new Error(`result refused: ${JSON.stringify(r.rejected)}`);
      }
    },
  };
}
