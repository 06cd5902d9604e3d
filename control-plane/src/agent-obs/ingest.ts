import {
  newId, type AgentEndpointCheckOutput, type AgentObsFailureClass, type AlertChannelType, type MonitorResultEnvelope,
} from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Mailer, MonitorResultStore, SqlExecutor } from '../contracts.js';
import { queueNotification } from '../alerting/notify.js';
import type { Logger } from '../log.js';
import { failureClassOf } from './classify.js';
import { budgetEmail } from './budget-email.js';
import { existingEventKeys, insertAgentObsEvents, type NewAgentObsEvent } from './events.db.js';
import { lockAgentObsMonitors, nodeRegion, ownersChannels, storeMonthTotal, type IngestAgentObsRow } from './ingest.db.js';
import { setBackingMonitorStatus } from './monitors.db.js';
import { checkCost, priceTable, type PriceTable } from './prices.js';
import { inTransaction } from '../db/transaction.js';

const AGENT_TYPES = new Set(['llm_endpoint', 'tool_api', 'rag']);
const PREVIEW_MAX = 500;


/** What recording needs. */
export interface AgentObsIngestDeps {
  prices: PriceTable;
  mail: Mailer;
  config: Pick<Config, 'delivery_notify_channel' | 'public_url' | 'host' | 'port'>;
}

/**
 * Record the agent-obs events of `results` (stored monitor results of `node_id`; those of
 * monitors that back no agent-obs monitor are ignored) in one transaction (docs/api/agent-obs.md
 * "Cost and budget"): each agent-obs monitor's row is locked, each new check (one per monitor,
 * node and round: a result sent again records nothing) gets its cost (prices.ts checkCost) added
 * to the month's total, and the check that takes the total over `budget_monthly_usd` moves the
 * monitor to `exceeded_budget`, pauses its backing monitor and queues one e-mail to the owner, all
 * in that transaction. Checks that arrive once the monitor is `exceeded_budget` are recorded with
 * failure_class `budget` and charge nothing, so the total passes the budget by at most one
 * check's cost however many nodes report at once. A failing check that is counted queues an
 * alert notification to each of the monitor's `notification_channels` (the owner's) through the
 * delivery engine. Events get their stream seq in the same transaction (events.db.ts).
 * @returns backing monitor ids paused now (the caller re-places them once committed)
 */
export async function recordAgentObsResults(ex: SqlExecutor, node_id: string, results: MonitorResultEnvelope[], deps: AgentObsIngestDeps): Promise<string[]> {
  const mine = results.filter((r) => AGENT_TYPES.has(r.type));
  if (mine.length === 0) return [];
  return inTransaction(ex, async (tx) => {
    const monitors = await lockAgentObsMonitors(tx, [...new Set(mine.map((r) => r.monitor_id))]);
    if (monitors.length === 0) return [];
    const byMonitor = new Map(monitors.map((m) => [m.monitor_id, { ...m, touched: false }]));
    const candidates = mine.filter((r) => byMonitor.has(r.monitor_id));
    const seen = await existingEventKeys(tx, node_id, candidates.map((r) => byMonitor.get(r.monitor_id)!.id), candidates.map((r) => new Date(r.scheduled_at)));
    const region = await nodeRegion(tx, node_id);
    const events: NewAgentObsEvent[] = [];
    const crossed: Array<IngestAgentObsRow> = [];
    const failing: Array<{ m: IngestAgentObsRow; e: NewAgentObsEvent }> = [];

    for (const r of [...candidates].sort((a, b) => Date.parse(a.scheduled_at) - Date.parse(b.scheduled_at))) {
      const m = byMonitor.get(r.monitor_id)!;
      const key = `${m.id}/${Date.parse(r.scheduled_at)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const o = r.output as AgentEndpointCheckOutput | null;
      const cost = checkCost(deps.prices, { model: o?.model ?? null, prompt_tokens: o?.prompt_tokens ?? null, completion_tokens: o?.completion_tokens ?? null }, m.budget_per_check_usd);
      const check_class = failureClassOf(r);
      let failure_class: AgentObsFailureClass | null = check_class;
      let success = r.success;
      let cost_usd = cost.cost_usd;
      let failure_detail: Record<string, unknown> | null = r.success ? null : { error: r.error, status_code: o?.status_code ?? null, missing_fields: o?.missing_fields ?? [] };
      if (m.status === 'exceeded_budget') {
        // The budget is spent: the check is recorded but charges nothing (bounded overshoot).
        failure_detail = { reason: 'monthly budget exceeded: this check was not counted', check_success: r.success, check_failure_class: check_class,
          estimated_cost_usd: cost.cost_usd, budget_monthly_usd: m.budget_monthly_usd, total_cost_this_month_usd: m.total_usd };
        success = false;
        failure_class = 'budget';
        cost_usd = null;
      } else {
        m.total_usd = Math.round((m.total_usd + (cost.cost_usd ?? 0)) * 1e9) / 1e9;
        if (m.budget_monthly_usd !== null && m.total_usd > m.budget_monthly_usd) {
          m.status = 'exceeded_budget';
          crossed.push(m);
        }
      }
      m.touched = true;
      const e: NewAgentObsEvent = {
        id: newId('agent_obs_event'), monitor_id: m.id, user_id: m.user_id, team_id: m.team_id, node_id,
        scheduled_at: new Date(r.scheduled_at), occurred_at: new Date(r.finished_at), success, latency_ms: o?.latency_ms ?? null,
        cost_usd, tokens_used: o?.tokens_used ?? null, status_code: o?.status_code ?? null, failure_class,
        failure_detail: failure_detail && { ...failure_detail, ...(cost.basis !== 'none' && failure_class !== 'budget' ? { cost_basis: cost.basis } : {}) },
        region, trace_id: null, obs_type: r.type as NewAgentObsEvent['obs_type'],
        response_preview: o?.response_preview ? o.response_preview.slice(0, PREVIEW_MAX) : null,
      };
      events.push(e);
      if (!e.success && e.failure_class !== 'budget') failing.push({ m, e });
    }

    for (const m of byMonitor.values()) if (m.touched) await storeMonthTotal(tx, m.id, m.total_usd, m.status);
    for (const m of crossed) {
      await setBackingMonitorStatus(tx, m.monitor_id, 'paused');
      if (m.owner_email) await deps.mail.send({ ...budgetEmail(m, deps.config), to: m.owner_email, user_id: m.user_id, kind: 'agent_obs.budget_exceeded' }, tx);
    }
    for (const { m, e } of failing) {
      for (const ch of await ownersChannels(tx, m.notification_channels, m)) {
        await queueNotification(tx, deps.config, { id: ch.id, type: ch.type as AlertChannelType, user_id: ch.user_id }, {
          kind: 'alert', event_action: 'trigger', dedup_key: `agent_obs:${m.id}`, severity: 'error', occurred_at: e.occurred_at.toISOString(),
          title: `${m.agent_name}: check failed (${e.failure_class})`,
          body: `The agent-obs monitor "${m.agent_name}" (${m.id}) failed a check of ${m.endpoint_url} from ${e.region ?? 'a node'}: ${String(e.failure_detail?.error ?? e.failure_class)}.`,
          monitor: { id: m.id, name: m.agent_name, type: e.obs_type, target: m.endpoint_url }, event_id: e.id, policy_id: null,
        }, `msg_${e.id}`);
      }
    }
    await insertAgentObsEvents(tx, events);
    return crossed.map((m) => m.monitor_id);
  });
}

/**
 * The check store `store` that also records agent-obs events for the results it stored
 * ({@link recordAgentObsResults}), after storing them: a failure fails the batch, which the node
 * sends again (the results are stored once, each event recorded once). A backing monitor paused
 * by its budget is re-placed (leaves its nodes) once the batch committed; within a caller's
 * transaction the placement job does it.
 */
export function withAgentObs(store: MonitorResultStore, deps: {
  config: Config; mail: Mailer; log: Logger; placeNow?: (monitor_id: string) => Promise<unknown>;
}): MonitorResultStore {
  const rec: AgentObsIngestDeps = { prices: priceTable(deps.config.agent_obs_prices), mail: deps.mail, config: deps.config };
  const log = deps.log.child({ module: 'agent-obs.ingest' });
  return {
    async store(tx, node_id, results) {
      const outcome = await store.store(tx, node_id, results);
      if (outcome.stored.length === 0) return outcome;
      const stored = new Set(outcome.stored);
      const paused = await recordAgentObsResults(tx, node_id, results.filter((r) => stored.has(r.result_id)), rec);
      if (paused.length > 0 && !('savepoint' in tx) && deps.placeNow) {
        for (const id of paused) await deps.placeNow(id).catch((err: unknown) => log.warn({ err, monitor_id: id }, 'placement after a budget pause failed; the placement job retries'));
      }
      return outcome;
    },
  };
}
