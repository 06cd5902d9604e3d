import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { AGENT_OBS_EVENTS_CHANNEL, eventsAfter, streamHead, type AgentObsEventRow } from './events.db.js';

const BATCH = 1000;

/** One stream client as the hub sees it: which events it may see, and where they go. */
export interface StreamSubscriber {
  wants(row: AgentObsEventRow): boolean;
  deliver(rows: AgentObsEventRow[]): void;
}

/** The fan-out of one process's event streams. */
export interface AgentObsStreamHub {
  /** Add a subscriber (starts the hub on the first); @returns unsubscribe */
  subscribe(s: StreamSubscriber): Promise<() => void>;
  /** Subscribers now. */
  readonly size: number;
  /** Stop listening and polling. */
  close(): Promise<void>;
}

/**
 * One reader of new events per process, whatever the number of stream clients (docs/api/agent-obs.md
 * "Event stream"): told of each committed batch by NOTIFY (events.db.ts AGENT_OBS_EVENTS_CHANNEL),
 * and polling every `poll_ms` as well (a notification can be lost while the LISTEN connection
 * reconnects), it reads the events after the last seq it saw, in seq order (commit order), and
 * hands each subscriber those it wants. Subscribers de-duplicate by seq (a client's catch-up may
 * overlap what the hub hands it).
 */
export function createAgentObsStreamHub(deps: { sql: Sql; log: Logger; poll_ms: number }): AgentObsStreamHub {
  const log = deps.log.child({ module: 'agent-obs.stream' });
  const subs = new Set<StreamSubscriber>();
  let last: string | null = null;
  let started: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  let running = false;
  let again = false;

  async function tick(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        for (;;) {
          const rows = await eventsAfter(deps.sql, last!, BATCH);
          if (rows.length === 0) break;
          last = rows[rows.length - 1]!.seq;
          for (const s of subs) {
            const wanted = rows.filter((r) => s.wants(r));
            if (wanted.length > 0) s.deliver(wanted);
          }
          if (rows.length < BATCH) break;
        }
      } while (again);
    } catch (err) {
      log.warn({ err }, 'reading new agent-obs events failed; retried at the next poll');
    } finally {
      running = false;
    }
  }

  async function start(): Promise<void> {
    last = await streamHead(deps.sql);
    const sub = await deps.sql.listen(AGENT_OBS_EVENTS_CHANNEL, () => void tick());
    unlisten = () => sub.unlisten();
    timer = setInterval(() => void tick(), deps.poll_ms);
    timer.unref();
  }

  return {
    get size() { return subs.size; },
    async subscribe(s) {
      started ??= start().catch((err: unknown) => {
        started = null;
        throw err;
      });
      await started;
      subs.add(s);
      return () => void subs.delete(s);
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      await unlisten?.().catch(() => undefined);
      unlisten = null;
      started = null;
      subs.clear();
    },
  };
}

const hubs = new WeakMap<Sql, AgentObsStreamHub>();

/** The stream hub of the process's database client `sql` (one per client: made on first use). */
export function streamHubOf(deps: { sql: Sql; log: Logger; poll_ms: number }): AgentObsStreamHub {
  let hub = hubs.get(deps.sql);
  if (!hub) {
    hub = createAgentObsStreamHub(deps);
    hubs.set(deps.sql, hub);
  }
  return hub;
}
