import { isId, newId, type AlertChannelType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { EventPublisher, Mailer, OutboundEvent, SqlExecutor } from '../contracts.js';
import { createMailer } from '../delivery/mailer.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import {
  claimDueEvents, claimRecovered, failingCandidates, getEvent, insertEvents, lastFailuresOf, lastVerdictsOf,
  nextPlannedAt, pagedChannels, updateEvent,
  type AlertEventRow, type CandidateCursor, type EngineMonitor, type EnginePolicy,
} from './alert-events.db.js';
import { withdrawFromOpenBatches } from './alert-batches.db.js';
import { levelChannels, levelSchedules, nextStep, notificationKey, thresholdReached } from './escalation.js';
import { alertWebhookEvent, buildNotification } from './events.js';
import { flushDueBatches } from './group-batches.js';
import { collapses, groupOfMonitor } from './grouping.js';
import { ALERT_ENGINE_WAKE_CHANNEL } from './engine-hook.js';
import { sendMaintenanceNotices } from './maintenance-notices.js';
import { stepReads, type StepReads } from './step-reads.js';
import { notificationDelivery, oncallEmailDelivery } from './notify.js';
import { holdFlappingResolve, noiseDecision } from './noise-engine.js';
import { batchFor, stepWrites, writeSteps, type StepWrites } from './step-writes.js';

/*
 * The alert engine (docs/api/alerting.md "Alert events"). One pass: open events for monitors
 * failing `recovery_n` consecutive rounds (running the first step of those without a delay in the
 * same transaction, so the page is queued as the event opens), resolve open events whose monitor
 * is up again, then run the notification steps that are due. Every change commits with the
 * deliveries it queues, and each delivery's message id is `<event>:<level>:<channel>:<kind>`, so
 * a pass cut short and run again (this instance after a restart, or another) neither loses nor
 * repeats a page.
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
/**
 * Events (candidates, due steps, recoveries) a pass takes per page and transaction. Each page
 * costs a fixed round of reads and writes (candidates, rounds, failures, suppressions, channels,
 * the events' and deliveries' inserts) whatever its size: on a 2-core VM, a storm of 1,000 monitors
 * down at once had all its pages queued 1.2 s after the hand-over in pages of 250, 1.6 s in pages
 * of 100 (medians of six runs each: docs/benchmarks.md "Alert path").
 */
const BATCH = 250;

/**
 * Gather in `w` the notifications of `kind` for `targets` (level and channel each): a delivery
 * and its record each. A page (`firing`) of a monitor in an alert group joins the group's batch
 * for its channel instead (group-batches.ts), except on channels that do not collapse (PagerDuty).
 * A policy template replaced by the default at render (template_fault) is logged with its ids.
 */
async function notify(log: Logger | undefined, tx: SqlExecutor, reads: StepReads, w: StepWrites, event: AlertEventRow, policy: EnginePolicy, monitor: EngineMonitor,
  kind: Kind, targets: Array<{ level: number; channel_id: string }>, at: Date): Promise<void> {
  const channels = await reads.channels(targets.map((t) => t.channel_id));
  const group = kind === 'firing' ? groupOfMonitor(await reads.groups(monitor), monitor) : null;
  for (const t of targets) {
    const row = { event_id: event.id, level: t.level, channel_id: t.channel_id, kind, suppressed: null, created_at: at };
    // A schedule (escalation level schedule_ids) pages its person on call at `at` on their contact
    // channels (each through its own sender), or without any by e-mail to their account; never batched.
    if (isId('oncall_schedule', t.channel_id)) {
      const contact = await reads.onCall(t.channel_id, at);
      if (!contact) {
        log?.warn({ policy_id: policy.id, event_id: event.id, schedule_id: t.channel_id }, 'on-call schedule paged but nobody (still a team member) is on call');
        continue;
      }
      const n = buildNotification(event, policy, monitor, kind, t.level, at);
      const key = notificationKey(event.id, t.level, t.channel_id, kind);
      const deliveries = contact.channels.length === 0 ? [oncallEmailDelivery(contact, n, key, event.user_id)]
        : contact.channels.map((ch) => notificationDelivery(ch, n, `${key}:${ch.id}`));
      w.deliveries.push(...deliveries);
      // One record per schedule and level: it names the first of the person's deliveries.
      w.notifications.push({ ...row, delivery_id: deliveries[0]!.id, batch_id: null });
      continue;
    }
    const channel = channels.get(t.channel_id);
    if (!channel) continue;
    if (group && collapses(channel.type)) {
      w.notifications.push({ ...row, delivery_id: null, batch_id: await batchFor(tx, w, monitor.user_id, group, channel.id, at) });
      continue;
    }
    const n = buildNotification(event, policy, monitor, kind, t.level, at);
    if (n.template_fault) log?.warn({ policy_id: policy.id, event_id: event.id, channel_id: t.channel_id, fault: n.template_fault }, 'alert policy template not used: the default was rendered');
    const delivery = notificationDelivery({ ...channel, type: channel.type as AlertChannelType }, n, notificationKey(event.id, t.level, t.channel_id, kind));
    w.deliveries.push(delivery);
    w.notifications.push({ ...row, delivery_id: delivery.id, batch_id: null });
  }
}

/**
 * The alert.* webhook event of `event` (webhooks/publisher.ts), or null without a publisher. With
 * its `policy` read, the owner is known (the policy's team, else its user:
 * webhooks/event-owner.db.ts), so the publisher is told the team instead of reading it. Steps
 * gather their events and publish them together when their writes are made (step-writes.ts
 * writeSteps: one read of the owners' endpoints per batch of pages; an owner without a subscribed
 * endpoint gets nothing queued).
 */
function webhookEvent(deps: AlertEngineDeps, event: AlertEventRow, policy: EnginePolicy | null, at: Date): OutboundEvent | null {
  if (!deps.events) return null;
  const e = alertWebhookEvent(event, at);
  if (policy && policy.team_id !== undefined) e.team_id = policy.team_id;
  return e;
}

/**
 * Open events for failing monitors that reached their policy's threshold, every candidate page
 * by page (a storm of monitors going down opens all its events in one pass), each page's events
 * due at once paging in the transaction that opens them. `page_size`: candidates per page and
 * transaction (default {@link BATCH}).
 * @returns how many opened, and how many of their steps ran
 */
export async function openEvents(deps: AlertEngineDeps, now: Date, page_size = BATCH): Promise<{ opened: number; steps: number }> {
  const total = { opened: 0, steps: 0 };
  let after: CandidateCursor | undefined;
  for (;;) {
    const page = await failingCandidates(deps.sql, page_size, after);
    if (page.length > 0) {
      const r = await openPage(deps, page, now);
      total.opened += r.opened;
      total.steps += r.steps;
    }
    if (page.length < page_size) return total;
    after = page.at(-1)!.cursor;
  }
}

/**
 * Open the events of a page of candidates whose threshold is reached, in one transaction (their
 * rounds, failures and the owners' suppressions read once for the page), and run the first step
 * of those due at once (no delay) in it too. @returns how many opened, and how many steps ran
 */
async function openPage(deps: AlertEngineDeps, page: Array<{ policy: EnginePolicy; monitor: EngineMonitor }>, now: Date): Promise<{ opened: number; steps: number }> {
  return deps.sql.begin(async (tx) => {
    const ids = [...new Set(page.map((c) => c.monitor.id))];
    const verdicts = await lastVerdictsOf(tx, ids, Math.max(...page.map((c) => c.policy.recovery_n)));
    const failures = await lastFailuresOf(tx, ids);
    const reads = await stepReads(tx);
    const rows: Array<Parameters<typeof insertEvents>[1][number]> = [];
    for (const { policy, monitor } of page) {
      // no_data is already a threshold of its own (two rounds in a row nobody reported: checks/replay.ts).
      const no_data = monitor.state === 'no_data';
      if (!no_data && !thresholdReached(verdicts.get(monitor.id) ?? [], policy.recovery_n, policy.fire_on_degraded)) continue;
      const failure = failures.get(monitor.id);
      rows.push({
        id: newId('alert_event'), user_id: monitor.user_id, policy_id: policy.id, monitor_id: monitor.id,
        type: no_data ? 'no_data' : monitor.state === 'degraded' ? 'degraded' : 'down', status: 'firing', started_at: failure?.changed_at ?? monitor.state_changed_at,
        fired_at: now, acknowledged_at: null, acknowledged_by: null, resolved_at: null, resolved_by: null, notified_at: null,
        next_level: 0, next_due_at: new Date(now.getTime() + policy.delay_s * 1000),
        suppressed: await reads.suppression(monitor, policy, now),
        metadata: { reason: failure?.reason ?? null, failing_nodes: failure?.failing_nodes ?? [] },
      });
    }
    // One statement for the page: a storm of 1,000 monitors opens its events in 10 inserts, not 1,000.
    const inserted = new Set(await insertEvents(tx, rows, now));
    // Events due at once (no delay) page in this transaction: the page is queued when the event
    // commits, not at a later claim (the rows are this transaction's, so no other pass has them).
    const due = rows.filter((r) => inserted.has(r.id) && r.next_due_at !== null && r.next_due_at.getTime() <= now.getTime());
    if (due.length > 0) await runSteps(deps, tx, due.map((r) => ({ ...r, created_at: now })), now);
    return { opened: inserted.size, steps: due.length };
  });
}

/**
 * Run the steps of `events` (locked by the caller, or inserted by its transaction) and write what
 * they queue, in the caller's transaction (their policies and monitors read in one query each).
 */
async function runSteps(deps: AlertEngineDeps, tx: SqlExecutor, events: AlertEventRow[], now: Date): Promise<void> {
  const reads = await stepReads(tx, events);
  const w = stepWrites();
  for (const e of events) await runStep(deps, tx, reads, w, e, now);
  await writeSteps(tx, deps, w);
}

/**
 * Run one due step of `event` (locked by the caller): page the level's channels unless a
 * maintenance, silence or mute holds it back (then record it as suppressed), and schedule the
 * next level `after_seconds` after this step's due time.
 */
async function runStep(deps: AlertEngineDeps, tx: SqlExecutor, reads: StepReads, w: StepWrites, event: AlertEventRow, now: Date): Promise<void> {
  const [policy, monitor] = [await reads.policy(event.policy_id), await reads.monitor(event.monitor_id)];
  if (!policy || !monitor || event.next_level === null || event.next_due_at === null) {
    w.schedules.push({ id: event.id, notified_at: event.notified_at, next_level: null, next_due_at: null });
    return;
  }
  const level = event.next_level;
  // Channels and on-call schedules alike (a schedule id stands in the channel_id of its notification rows).
  const channel_ids = [...levelChannels(policy, level), ...levelSchedules(policy, level)];
  // Noise rules (noise-engine.ts) first: a minimum down duration defers the step, a flap or a duplicate holds the page back.
  const noise = await noiseDecision(tx, w, event, level, now, reads.noiseRules);
  if (noise.defer_until) {
    w.schedules.push({ id: event.id, notified_at: event.notified_at, next_level: level, next_due_at: noise.defer_until });
    return;
  }
  const suppressed = noise.suppressed ?? await reads.suppression(monitor, policy, now);
  let notified_at = event.notified_at;
  if (suppressed) {
    w.notifications.push(...channel_ids.map((channel_id) => ({ event_id: event.id, level, channel_id, kind: 'firing' as const, delivery_id: null, suppressed, batch_id: null, created_at: now })));
  } else {
    await notify(deps.log, tx, reads, w, event, policy, monitor, 'firing', channel_ids.map((channel_id) => ({ level, channel_id })), now);
    if (!notified_at) {
      notified_at = now;
      const e = webhookEvent(deps, event, policy, now);
      if (e) w.events.push(e);
    }
  }
  const next = nextStep(policy, level, event.next_due_at);
  w.schedules.push({ id: event.id, notified_at, next_level: next?.level ?? null, next_due_at: next?.due_at ?? null });
}

/** Run the steps due at `now`, a batch per transaction. @returns how many steps ran */
export async function runDueSteps(deps: AlertEngineDeps, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deps.sql.begin(async (tx) => {
      const due = await claimDueEvents(tx, now, BATCH);
      if (due.length > 0) await runSteps(deps, tx, due, now);
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
  const reads = await stepReads(tx);
  if (paged.length > 0) {
    const [policy, monitor] = [await reads.policy(event.policy_id), await reads.monitor(event.monitor_id)];
    const w = stepWrites();
    if (policy && monitor) await notify(deps.log, tx, reads, w, row, policy, monitor, kind, paged, now);
    await writeSteps(tx, deps, w);
  }
  const e = row.notified_at ? webhookEvent(deps, row, null, now) : null;
  if (e) await deps.events!.publish(e, tx);
  return row;
}

/**
 * Resolve open events whose monitor is up again, a batch per transaction until none is left; one a
 * flap rule holds (noise-engine.ts holdFlappingResolve) stays open until the hold is over.
 * @returns how many were claimed (resolved or held)
 */
export async function resolveRecovered(deps: AlertEngineDeps, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deps.sql.begin(async (tx) => {
      const events = await claimRecovered(tx, BATCH, now);
      for (const e of events) {
        // A flap rule holds the resolution of a paged event while its monitor flaps (noise-engine.ts).
        if (e.type !== 'no_data' && await holdFlappingResolve(tx, e, now)) continue;
        await finish(deps, tx, e, 'resolved', null, now);
      }
      return events.length;
    });
    total += n;
    if (n < BATCH) return total;
  }
}

/**
 * `POST /v1/alert-events/{id}/ack` by `user_id`: a firing event becomes acknowledged (escalation
 * stops, paged channels are told); acknowledging an acknowledged event changes nothing.
 * The route authorized `user_id` first (teams/authorize.ts: an event is owned like its policy).
 * @returns the event, `missing` (no such event), or `resolved` (too late to acknowledge)
 */
export async function acknowledgeEvent(deps: AlertEngineDeps, user_id: string, id: string, now = new Date()): Promise<AlertEventRow | 'missing' | 'resolved'> {
  return deps.sql.begin(async (tx) => {
    const e = await getEvent(tx, id, true);
    if (!e) return 'missing' as const;
    if (e.status === 'resolved') return 'resolved' as const;
    if (e.status === 'acknowledged') return e;
    return finish(deps, tx, e, 'acknowledged', user_id, now);
  });
}

/**
 * `POST /v1/alert-events/{id}/resolve` by `user_id`: an open event is resolved by hand (paged
 * channels are told); resolving a resolved event changes nothing. The route authorized `user_id`
 * first. @returns the event or `missing`
 */
export async function resolveEvent(deps: AlertEngineDeps, user_id: string, id: string, now = new Date()): Promise<AlertEventRow | 'missing'> {
  return deps.sql.begin(async (tx) => {
    const e = await getEvent(tx, id, true);
    if (!e) return 'missing' as const;
    if (e.status === 'resolved') return e;
    return finish(deps, tx, e, 'resolved', user_id, now);
  });
}

/**
 * One engine pass at `now`: open (an event without a delay pages as it opens), resolve, then due
 * steps (a recovery before the delay's end pages nobody), then the alert-group batches whose wait
 * is over, then maintenance advance notices. `steps` counts the steps run at opening too.
 * When it resolved events it opens again: a `no_data` event ends when its monitor reports again
 * but fails (alert-events.db.ts claimRecovered), and that failure's own event is held back only
 * by the open `no_data` one, so it opens in this pass, not in the next one up to an interval later
 * (no NOTIFY comes for it: the verdict pass that moved the monitor woke this one already).
 */
export async function alertEnginePass(deps: AlertEngineDeps, now: Date): Promise<{ opened: number; resolved: number; steps: number; grouped: number; notices: number }> {
  const first = await openEvents(deps, now);
  const resolved = await resolveRecovered(deps, now);
  const after = resolved > 0 ? await openEvents(deps, now) : { opened: 0, steps: 0 };
  const opened = first.opened + after.opened;
  const steps = first.steps + after.steps + await runDueSteps(deps, now);
  const grouped = await flushDueBatches(deps, now);
  const notices = deps.mail ? await sendMaintenanceNotices({ sql: deps.sql, mail: deps.mail }, now) : 0;
  return { opened, resolved, steps, grouped, notices };
}

/** Delay before the next pass when planned work is already due at the end of a pass, ms. */
const DUE_RETRY_MS = 500;

/**
 * Run engine passes every `interval_ms` (default 1 s), or sooner when a step or an alert group's
 * flush is planned before that (alert-events.db.ts nextPlannedAt), until stopped; a failed pass
 * is logged and the next one runs on time. With a database server (`config.database_url`) the engine also
 * LISTENs on `ALERT_ENGINE_WAKE_CHANNEL`: a monitor starting or stopping to fail (engine-hook.ts)
 * runs a pass at once (or right after the one under way). `clock` gives `now` (tests). Without
 * `deps.mail` the notices go through a Mailer built from the configuration (the delivery engine's
 * `email` channel).
 */
export function startAlertEngine(engine: AlertEngineDeps & { config: Config; log: Logger }, opts: { interval_ms?: number; clock?: () => Date } = {}): { stop(): Promise<void> } {
  const deps: AlertEngineDeps = { ...engine, mail: engine.mail ?? createMailer(engine) };
  const interval_ms = opts.interval_ms ?? 1000;
  const clock = opts.clock ?? (() => new Date());
  let stopped = false;
  let busy = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // The next pass comes at the interval, or sooner when a step or a group's flush is planned
  // before it (an alert group's message goes out at its wait's end, not up to an interval later).
  const untilNext = async (): Promise<number> => {
    const at = await nextPlannedAt(deps.sql);
    if (at === null) return interval_ms;
    // Work already due: planned while this pass ran (a batch opened by it whose wait ended before
    // the pass did, on a slow machine) or left locked by another instance's pass. The next pass
    // comes DUE_RETRY_MS later, not an interval later, and not at once (no busy loop on a lock).
    const in_ms = at.getTime() - clock().getTime();
    return Math.min(interval_ms, in_ms > 0 ? in_ms : DUE_RETRY_MS);
  };
  const tick = () => {
    busy = true;
    again = false;
    running = alertEnginePass(deps, clock()).then(untilNext).then((ms) => ms, (err) => {
      deps.log?.error({ err }, 'alert engine pass failed');
      return interval_ms;
    }).then((ms) => {
      busy = false;
      if (!stopped) timer = setTimeout(tick, again ? 0 : ms);
    });
  };
  const wake = () => {
    if (stopped) return;
    if (busy) {
      again = true;
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(tick, 0);
  };
  const listening = engine.config.database_url
    ? engine.sql.listen(ALERT_ENGINE_WAKE_CHANNEL, wake).catch((err: unknown) => {
      engine.log.warn({ err }, 'alert engine cannot LISTEN: passes run on its interval only');
      return null;
    })
    : Promise.resolve(null);
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await (await listening)?.unlisten().catch(() => {});
      await running;
    },
  };
}
