import type { Config } from '../config/index.js';
import type { EventPublisher, OutboundEvent, SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { WakeSignal } from '../delivery/wake.js';
import type { Logger } from '../log.js';
import { claimOutbox, markRelayed, nodeFacts, probeGroupFacts, pruneOutbox, type OutboxRow } from './event-outbox.db.js';

/** The channel the outbox triggers NOTIFY on (0022_event_outbox.sql). */
export const OUTBOX_NOTIFY_CHANNEL = 'vantage_event_outbox';
/** Outbox rows relayed per transaction. */
const BATCH = 200;
const PRUNE_EVERY_MS = 10 * 60 * 1000;

/** The relay of one instance. */
export interface EventRelay {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Relay everything pending now (tests, benchmarks). @returns how many rows */
  drain(): Promise<number>;
}

/** Build the catalog event for an outbox row from the facts loaded for its batch; null when its subject is gone. */
async function toEvents(tx: SqlExecutor, rows: OutboxRow[]): Promise<Array<{ row: OutboxRow; event: OutboundEvent | null }>> {
  const nodes = await nodeFacts(tx, rows.filter((r) => r.type !== 'probe.completed').map((r) => r.subject_id));
  const groups = await probeGroupFacts(tx, rows.filter((r) => r.type === 'probe.completed').map((r) => r.subject_id));
  return rows.map((row) => {
    const base = { user_id: row.user_id, occurred_at: row.occurred_at };
    if (row.type === 'probe.completed') {
      const g = groups.get(row.subject_id);
      if (!g) return { row, event: null };
      return {
        row,
        event: {
          ...base, type: 'probe.completed',
          data: {
            task_id: g.group_id, task_ids: g.task_ids, probe_type: g.probe_type as never, target: g.target,
            status: g.success_count > 0 ? 'completed' : 'failed', success_count: g.success_count, fail_count: g.fail_count,
            created_at: g.created_at.toISOString(), completed_at: (g.completed_at ?? row.occurred_at).toISOString(),
          },
        },
      };
    }
    const n = nodes.get(row.subject_id);
    if (!n) return { row, event: null };
    const status = row.type === 'node.online' ? 'online' as const : 'offline' as const;
    return {
      row,
      event: {
        ...base, type: row.type,
        data: {
          node: { id: n.id, name: n.name, country: n.country, region: n.region, city: n.city, asn: n.asn === null ? null : Number(n.asn), provider: n.provider },
          status, changed_at: row.occurred_at.toISOString(),
        },
      },
    };
  });
}

/**
 * The event relay (docs/architecture/delivery.md "Event sources"): turns rows the outbox triggers
 * wrote (node.online, node.offline, probe.completed) into webhook deliveries through the
 * publisher, in the transaction that marks them relayed, so each event is queued exactly once
 * by whichever instance takes it (FOR UPDATE SKIP LOCKED). Woken by the triggers' NOTIFY (with a
 * database server) and by a poll every `delivery_poll_interval_ms`.
 */
export function createEventRelay(deps: { sql: Sql; log: Logger; config: Config; events: EventPublisher; signal: WakeSignal; listen: boolean }): EventRelay {
  const { sql, config, events, signal } = deps;
  const log = deps.log.child({ module: 'events.relay' });
  let stopping = false;
  let loopDone: Promise<void> = Promise.resolve();
  let unlisten: (() => Promise<void>) | null = null;
  let pruneTimer: NodeJS.Timeout | null = null;

  async function round(): Promise<number> {
    return sql.begin(async (tx) => {
      const rows = await claimOutbox(tx, BATCH);
      if (rows.length === 0) return 0;
      const relayed: OutboundEvent[] = [];
      for (const { row, event } of await toEvents(tx, rows)) {
        if (event) relayed.push(event);
        else log.warn({ type: row.type, subject_id: row.subject_id }, 'event dropped: its subject no longer exists');
      }
      await events.publishMany(relayed, tx);
      await markRelayed(tx, rows.map((r) => r.id));
      return rows.length;
    });
  }

  async function drain(): Promise<number> {
    let total = 0;
    for (let n = await round(); n > 0; n = n === BATCH ? await round() : 0) total += n;
    return total;
  }

  async function loop(): Promise<void> {
    let errors = 0;
    while (!stopping) {
      try {
        await drain();
        errors = 0;
      } catch (err) {
        errors++;
        log.error({ err }, 'relaying events failed');
      }
      await signal.wait(errors ? Math.min(100 * 2 ** errors, 5000) : config.delivery_poll_interval_ms);
    }
  }

  return {
    drain,
    async start() {
      if (deps.listen) {
        const sub = await sql.listen(OUTBOX_NOTIFY_CHANNEL, () => signal.wake());
        unlisten = () => sub.unlisten();
      }
      loopDone = loop();
      pruneTimer = setInterval(() => {
        pruneOutbox(sql, config.delivery_retention_days).catch((err: unknown) => log.warn({ err }, 'pruning the event outbox failed'));
      }, PRUNE_EVERY_MS);
      pruneTimer.unref();
    },
    async stop() {
      stopping = true;
      if (pruneTimer) clearInterval(pruneTimer);
      signal.wake();
      await loopDone;
      await unlisten?.().catch(() => {});
    },
  };
}
