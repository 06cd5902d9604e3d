import { newId, type AlertChannelType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { EventPublisher, Mailer, SqlExecutor } from '../contracts.js';
import { createMailer } from '../delivery/mailer.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import {
  channelsByIds, claimDueEvents, claimRecovered, failingCandidates, getEvent, insertEvent, lastFailure, lastVerdicts,
  monitorById, pagedChannels, policyById, recordNotifications, updateEvent,
  type AlertEventRow, type CandidateCursor, type EngineMonitor, type EnginePolicy, type EventNotificationRow,
} from './alert-events.db.js';
import { groupsOfUser, withdrawFromOpenBatches } from './alert-batches.db.js';
import { liveSilences } from './alert-silences.db.js';
import { levelChannels, nextStep, notificationKey, suppressionAt, thresholdReached } from './escalation.js';
import { alertWebhookEvent, buildNotification } from './events.js';
import { flushDueBatches, gatherPage } from './group-batches.js';
import { collapses, groupOfMonitor } from './grouping.js';
import { sendMaintenanceNotices } from './maintenance-notices.js';
import { liveWindows } from './maintenance-windows.db.js';
import { queueNotification } from './notify.js';

/*
 * The alert engine (docs/api/alerting.md "Alert events"). One pass: open events for monitors
 * failing `recovery_n` consecutive rounds, resolve open events whose monitor is up again, then
 * run the notification steps that are due. Every change commits with the deliveries it queues,
 * and each delivery's message id is `<event>:<level>:<channel>:<kind>`, so a pass cut short
 * and run again (this instance after a restart, or another) neither loses nor repeats a page.
 * Steps are claimed FOR UPDATE SKIP LOCKED and opening relies on the one-open-event index, so
 * any number of instances run passes at once.
 */

/**
 * What the engine needs. `events`: the webhook publisher (alert.* events), absent in some tests;
 * `mail`: the Mailer of maintenance advance notices (none sent without it).
 */
export interface AlertEngineDeps {
  sql: Sql;
  config: Pick<Config, 'delivery_notify_channel'>;
  events?: EventPublisher;
  mail?: Mailer;
  log?: Logger;
}

type Kind = 'firing' | 'acknowledged' | 'resolved';
const BATCH = 100;

async function suppressionOf(tx: SqlExecutor, monitor: EngineMonitor, policy: EnginePolicy, at: Date) {
  const [silences, windows] = await Promise.all([liveSilences(tx as Sql, monitor.user_id, at), liveWindows(tx as Sql, monitor.user_id, at)]);
  return suppressionAt({ monitor, policy, silences, windows, owner_tz: monitor.owner_tz || 'UTC' }, at);
}

/**
 * Queue `kind` for `targets` (level and channel each) and record them; @returns how many were queued now.
 * A page (`firing`) of a monitor in an alert group goes to the group's batch for its channel
 * instead (group-batches.ts), except to channels that do not collapse (PagerDuty).
 */
async function notify(deps: AlertEngineDeps, tx: SqlExecutor, event: AlertEventRow, policy: EnginePolicy, monitor: EngineMonitor,
  kind: Kind, targets: Array<{ level: number; channel_id: string }>, at: Date): Promise<number> {
  const channels = new Map((await channelsByIds(tx, targets.map((t) => t.channel_id))).map((c) => [c.id, c]));
  const group = kind === 'firing' ? groupOfMonitor(await groupsOfUser(tx, monitor.user_id), monitor) : null;
  const rows: EventNotificationRow[] = [];
  let queued = 0;
  for (const t of targets) {
    const channel = channels.get(t.channel_id);
    if (!channel) continue;
    if (group && collapses(channel.type)) {
      await gatherPage(tx, monitor.user_id, group, { event_id: event.id, level: t.level, channel_id: t.channel_id }, at);
      continue;
    }
    const n = buildNotification(event, policy, monitor, kind, t.level, at);
    const r = await queueNotification(tx, deps.config, { ...channel, type: channel.type as AlertChannelType }, n, notificationKey(event.id, t.level, t.channel_id, kind));
    if (r.queued) queued++;
    rows.push({ event_id: event.id, level: t.level, channel_id: t.channel_id, kind, delivery_id: r.delivery_id, suppressed: null, batch_id: null, created_at: at });
  }
  await recordNotifications(tx, rows);
  return queued;
}

async function publish(deps: AlertEngineDeps, tx: SqlExecutor, event: AlertEventRow, at: Date): Promise<void> {
  if (deps.events) await deps.events.publish(alertWebhookEvent(event, at), tx);
}

/**
 * Open events for failing monitors that reached their policy's threshold, every candidate page
 * by page (a storm of monitors going down opens all its events in one pass). @returns how many opened
 */
export async function openEvents(deps: AlertEngineDeps, now: Date): Promise<number> {
  let opened = 0;
  let after: CandidateCursor | undefined;
  for (;;) {
    const page = await failingCandidates(deps.sql, BATCH, after);
    for (const candidate of page) opened += await openEvent(deps, candidate, now);
    if (page.length < BATCH) return opened;
    after = page.at(-1)!.cursor;
  }
}

/** Open the event of one candidate when its threshold is reached (its own transaction). @returns 1 when opened */
async function openEvent(deps: AlertEngineDeps, { policy, monitor }: { policy: EnginePolicy; monitor: EngineMonitor }, now: Date): Promise<number> {
  return deps.sql.begin(async (tx) => {
    if (!thresholdReached(await lastVerdicts(tx, monitor.id, policy.recovery_n), policy.recovery_n, policy.fire_on_degraded)) return 0;
    const failure = await lastFailure(tx, monitor.id);
    const row = await insertEvent(tx, {
      id: newId('alert_event'), user_id: monitor.user_id, policy_id: policy.id, monitor_id: monitor.id,
      type: monitor.state === 'degraded' ? 'degraded' : 'down', status: 'firing', started_at: failure?.changed_at ?? monitor.state_changed_at,
      fired_at: now, acknowledged_at: null, acknowledged_by: null, resolved_at: null, resolved_by: null, notified_at: null,
      next_level: 0, next_due_at: new Date(now.getTime() + policy.delay_s * 1000),
      suppressed: await suppressionOf(tx, monitor, policy, now),
      metadata: { reason: failure?.reason ?? null, failing_nodes: failure?.failing_nodes ?? [] },
    }, now);
    return row ? 1 : 0;
  });
}

/**
 * Run one due step of `event` (locked by the caller): page the level's channels unless a
 * maintenance, silence or mute holds it back (then record it as suppressed), and schedule the
 * next level `after_seconds` after this step's due time.
 */
async function runStep(deps: AlertEngineDeps, tx: SqlExecutor, event: AlertEventRow, now: Date): Promise<void> {
  const [policy, monitor] = await Promise.all([policyById(tx, event.policy_id), monitorById(tx, event.monitor_id)]);
  if (!policy || !monitor || event.next_level === null || event.next_due_at === null) {
    await updateEvent(tx, event.id, { next_level: null, next_due_at: null });
    return;
  }
  const level = event.next_level;
  const channel_ids = levelChannels(policy, level);
  const suppressed = await suppressionOf(tx, monitor, policy, now);
  let notified_at = event.notified_at;
  if (suppressed) {
    await recordNotifications(tx, channel_ids.map((channel_id) => ({ event_id: event.id, level, channel_id, kind: 'firing' as const, delivery_id: null, suppressed, batch_id: null, created_at: now })));
  } else {
    await notify(deps, tx, event, policy, monitor, 'firing', channel_ids.map((channel_id) => ({ level, channel_id })), now);
    if (!notified_at) {
      notified_at = now;
      await publish(deps, tx, event, now);
    }
  }
  const next = nextStep(policy, level, event.next_due_at);
  await updateEvent(tx, event.id, { notified_at, next_level: next?.level ?? null, next_due_at: next?.due_at ?? null });
}

/** Run the steps due at `now`, a batch per transaction. @returns how many steps ran */
export async function runDueSteps(deps: AlertEngineDeps, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deps.sql.begin(async (tx) => {
      const due = await claimDueEvents(tx, now, BATCH);
      for (const e of due) await runStep(deps, tx, e, now);
      return due.length;
    });
    total += n;
    if (n < BATCH) return total;
  }
}

/**
 * Move a locked open event to acknowledged or resolved: no further steps; the channels it paged
 * hear of it (kind acknowledged or resolved, same level and channel keys); the webhook event
 * goes out when the firing one did.
 */
async function finish(deps: AlertEngineDeps, tx: SqlExecutor, event: AlertEventRow, kind: 'acknowledged' | 'resolved', by: string | null, now: Date): Promise<AlertEventRow> {
  const row = await updateEvent(tx, event.id, kind === 'acknowledged'
    ? { status: 'acknowledged', acknowledged_at: now, acknowledged_by: by, next_level: null, next_due_at: null }
    : { status: 'resolved', resolved_at: now, resolved_by: by, next_level: null, next_due_at: null });
  // Pages still gathering in a group's batch are withdrawn; pages its flush already sent count as paged.
  await withdrawFromOpenBatches(tx, event.id);
  const paged = await pagedChannels(tx, event.id);
  if (paged.length > 0) {
    const [policy, monitor] = await Promise.all([policyById(tx, event.policy_id), monitorById(tx, event.monitor_id)]);
    if (policy && monitor) await notify(deps, tx, row, policy, monitor, kind, paged, now);
  }
  if (row.notified_at) await publish(deps, tx, row, now);
  return row;
}

/** Resolve open events whose monitor is up again, a batch per transaction until none is left. @returns how many resolved */
export async function resolveRecovered(deps: AlertEngineDeps, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deps.sql.begin(async (tx) => {
      const events = await claimRecovered(tx, BATCH);
      for (const e of events) await finish(deps, tx, e, 'resolved', null, now);
      return events.length;
    });
    total += n;
    if (n < BATCH) return total;
  }
}

/**
 * `POST /v1/alert-events/{id}/ack` by `user_id`: a firing event becomes acknowledged (escalation
 * stops, paged channels are told); acknowledging an acknowledged event changes nothing.
 * @returns the event, `missing` (not the caller's), or `resolved` (too late to acknowledge)
 */
export async function acknowledgeEvent(deps: AlertEngineDeps, user_id: string, id: string, now = new Date()): Promise<AlertEventRow | 'missing' | 'resolved'> {
  return deps.sql.begin(async (tx) => {
    const e = await getEvent(tx, user_id, id, true);
    if (!e) return 'missing' as const;
    if (e.status === 'resolved') return 'resolved' as const;
    if (e.status === 'acknowledged') return e;
    return finish(deps, tx, e, 'acknowledged', user_id, now);
  });
}

/**
 * `POST /v1/alert-events/{id}/resolve` by `user_id`: an open event is resolved by hand (paged
 * channels are told); resolving a resolved event changes nothing. @returns the event or `missing`
 */
export async function resolveEvent(deps: AlertEngineDeps, user_id: string, id: string, now = new Date()): Promise<AlertEventRow | 'missing'> {
  return deps.sql.begin(async (tx) => {
    const e = await getEvent(tx, user_id, id, true);
    if (!e) return 'missing' as const;
    if (e.status === 'resolved') return e;
    return finish(deps, tx, e, 'resolved', user_id, now);
  });
}

/**
 * One engine pass at `now`: open, resolve, then due steps (a recovery before the delay pages
 * nobody), then the alert-group batches whose wait is over, then maintenance advance notices.
 */
export async function alertEnginePass(deps: AlertEngineDeps, now: Date): Promise<{ opened: number; resolved: number; steps: number; grouped: number; notices: number }> {
  const opened = await openEvents(deps, now);
  const resolved = await resolveRecovered(deps, now);
  const steps = await runDueSteps(deps, now);
  const grouped = await flushDueBatches(deps, now);
  const notices = deps.mail ? await sendMaintenanceNotices({ sql: deps.sql, mail: deps.mail }, now) : 0;
  return { opened, resolved, steps, grouped, notices };
}

/**
 * Run engine passes every `interval_ms` (default 1 s) until stopped; a failed pass is logged and
 * the next one runs on time. `clock` gives `now` (tests). Without `deps.mail` the notices go
 * through a Mailer built from the configuration (the delivery engine's `email` channel).
 */
export function startAlertEngine(engine: AlertEngineDeps & { config: Config; log: Logger }, opts: { interval_ms?: number; clock?: () => Date } = {}): { stop(): Promise<void> } {
  const deps: AlertEngineDeps = { ...engine, mail: engine.mail ?? createMailer(engine) };
  const interval_ms = opts.interval_ms ?? 1000;
  const clock = opts.clock ?? (() => new Date());
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = alertEnginePass(deps, clock()).then(() => undefined, (err) => deps.log?.error({ err }, 'alert engine pass failed'))
      .finally(() => { if (!stopped) timer = setTimeout(tick, interval_ms); });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
