import type postgres from 'postgres';
import type { EventData, EventType, MonitorResultEnvelope, ResultEnvelope, ServerMessage, TaskAckMessage, TaskCancelMessage, TaskRunMessage } from '@vantage/shared-protocol';
import type { Sql } from './db/sql.js';

/**
 * Interfaces that one feature implements for another, named in AppDeps (deps.ts) so that the
 * lower feature never imports the higher one: the hub (hub/) implements NodeHub and
 * NodeDisconnector, the probe-task side (probes/) implements ResultSink, webhooks (webhooks/)
 * implements EventPublisher and the delivery engine (delivery/) implements Mailer.
 */

/**
 * What the probe-task side needs from the node hub (hub/ implements it). Delivery is to the node
 * wherever it is connected: locally, or through Postgres LISTEN/NOTIFY to the instance holding
 * its socket (docs/architecture/hub.md, several instances); in embedded mode only locally held nodes are reachable.
 */
export interface NodeHub {
  /**
   * Send a task to a node. Resolves 'sent' when handed to the socket (locally or via NOTIFY to an
   * instance that the nodes table says holds it), 'offline' when no instance holds the node.
   */
  sendTask(node_id: string, message: TaskRunMessage): Promise<'sent' | 'offline'>;
  /** Ask a node to cancel a task (best effort; same delivery as sendTask). */
  cancelTask(node_id: string, message: TaskCancelMessage): Promise<'sent' | 'offline'>;
  /** Node ids whose sockets this instance holds right now. */
  localNodeIds(): string[];
  /** Close every socket with `server_shutdown` and stop listening for notifications. */
  close(): Promise<void>;
}

/**
 * What the hub hands results and task acks to (the probe-task side implements it).
 * `ingest` stores results idempotently (INSERT … ON CONFLICT DO NOTHING) and accepts a result only
 * when its task is assigned to `node_id` (or it is a monitor result of that node). It resolves
 * with the ids that are now durably stored, including ones stored earlier (so the node can delete
 * them), and the rejected ones with a reason; the hub sends `result.ack` for the stored ids only
 * after this resolves (ack after commit).
 */
export interface ResultSink {
  ingest(node_id: string, results: ResultEnvelope[]): Promise<{ stored: string[]; rejected: Array<{ result_id: string; reason: string }> }>;
  /** A node accepted or rejected a task; a rejection ends that node's part as failed with the reason. */
  taskAck(node_id: string, ack: TaskAckMessage): Promise<void>;
  /**
   * Tasks for `node_id` that it never acknowledged and whose deadline is still ahead: sent while it
   * was reconnecting, or relayed to an instance that died before delivering. The hub reads them
   * before it registers the new connection (so none was sent on it yet) and re-sends them after
   * `welcome`; the agent accepts a task id it holds, ran lately or has a result for as a duplicate
   * and does not run it twice.
   */
  pendingTasks(node_id: string): Promise<TaskRunMessage[]>;
  /**
   * A node said hello holding `tasks_held` (queued, running, or with a result in its outbox): its
   * tasks that it had accepted and no longer holds were lost (the agent restarted) and end failed
   * now ("node restarted"), not at their deadline (a result the node does send later still
   * replaces that failure). Called before the re-send. @returns how many
   */
  nodeReturned?(node_id: string, tasks_held: string[]): Promise<number>;
  /**
   * The slowest store of probe-task results since the last call (from the hub's hand-over to the
   * commit, queue wait included; one still in flight by its age), ms: load shedding reads it
   * once a window (middleware/load-shed.ts). Absent: not measured.
   */
  storeLatencyMs?(): number;
}

/**
 * Where monitor check results go (the checks feature implements it: checks/ingest.ts). The result
 * sink hands it all monitor results of a batch inside its own transaction when the batch also
 * holds task results, so they commit (and are acked) with the rest of the batch; a batch of
 * monitor results only is handed the plain client, so the store must write it atomically (in one
 * statement) and resolve only after that statement committed.
 */
export interface MonitorResultStore {
  /**
   * Store `results` of `node_id` in `tx` (a transaction or the client), idempotently by (monitor,
   * node, scheduled_at), checking the node's assignment itself (its placements).
   * @returns ids now durably stored (including ones stored before) and the refused ones with a reason
   */
  store(tx: SqlExecutor, node_id: string, results: MonitorResultEnvelope[]): Promise<{ stored: string[]; rejected: Array<{ result_id: string; reason: string }> }>;
}

/**
 * Monitor assignments of the nodes this instance holds (the monitors feature implements it; the
 * hub calls it, docs/architecture/hub.md "Assignments"): the whole set after every welcome, deltas
 * whenever placement changes a held node's set (from any instance: NOTIFY), acks recorded.
 */
export interface AssignmentFeed {
  /** A node was welcomed on this instance: send it `assignments.full` through `send` (false once the socket is gone). */
  connected(node_id: string, send: (message: ServerMessage) => boolean): Promise<void>;
  /** The node confirmed holding `version` (`assignments.ack`); a version never sent gets a full set. */
  acked(node_id: string, version: number): Promise<void>;
  /** The node's socket on this instance closed (or was replaced). */
  disconnected(node_id: string): void;
}

/**
 * Which rounds fall in a maintenance window (the alerting feature implements it from its windows;
 * the verdict job asks it about the rounds it judges, checks/decide.ts). A round in a window counts
 * as maintenance: left out of uptime, and the monitor's state is `maintenance` until a round
 * outside the window is judged.
 */
export interface MaintenanceCalendar {
  /**
   * Of `rounds` (monitor, round start), those a window of the monitor's owner covers at that
   * instant, read in the caller's transaction `tx`. @returns keys `${monitor_id}/${epoch ms}`
   */
  covered(tx: SqlExecutor, rounds: Array<{ monitor_id: string; at: Date }>): Promise<Set<string>>;
}

/**
 * Days each account's raw checks are kept (the check history's retention job asks; billing
 * implements it from account plans: billing/check-retention.ts).
 */
export interface AccountRetention {
  /**
   * `default_days` for every account not in `accounts` (the deployment's plan), and the days of
   * each account on other terms (a subscription, quota_override entitlements).
   */
  rawDays(): Promise<{ default_days: number; accounts: Map<string, number> }>;
}

/** Why the hub closes a node's socket on request of the API (owner disable/remove). */
export type DropReason = 'node_disabled' | 'node_removed';

/** What the node routes (nodes/) need from the hub to drop a disabled or removed node. */
export interface NodeDisconnector {
  /** Close the node's socket wherever it is held (this instance, or others via NOTIFY). */
  disconnect(node_id: string, reason: DropReason): Promise<void>;
}

/** True when `hub` can also disconnect nodes (the full hub; the API's deps only promise NodeHub). */
export function canDisconnect(hub: NodeHub): hub is NodeHub & NodeDisconnector {
  return typeof (hub as Partial<NodeDisconnector>).disconnect === 'function';
}

/** The client or an open transaction of it: outbound messages can be queued inside the caller's transaction. */
export type SqlExecutor = Sql | postgres.TransactionSql<Record<string, never>>;

/** An event for the webhook endpoints of one account (shared-protocol events.ts catalog). */
export interface OutboundEvent<T extends EventType = EventType> {
  type: T;
  /** The account whose endpoints receive it (its creator, for a team's resource). */
  user_id: string;
  /**
   * The team whose endpoints receive it instead (docs/api/webhooks.md "Teams"), null for a
   * personal resource. Omitted: the publisher reads it from the monitor, policy or node the
   * event names (webhooks/event-owner.db.ts).
   */
  team_id?: string | null;
  data: EventData<T>;
  /**
   * Stable event id (`evt_…`, the `webhook-id`). Give one derived from what happened (e.g. the
   * probe group) when the same event could be published twice: each endpoint gets it once.
   * Default: a new id.
   */
  id?: string;
  /** When it happened (the envelope's `timestamp`); default now. */
  occurred_at?: Date;
}

/**
 * What producers of events (hub: node.online/offline; probes: probe.completed; monitors and
 * alerting later) need from the webhooks feature (webhooks/ implements it).
 */
export interface EventPublisher {
  /**
   * Queue `event` for every enabled endpoint of its owner (the team of the resource it reports,
   * else `event.user_id`) subscribed to its type or `*`,
   * through the durable delivery engine. With `tx`, the deliveries commit (or roll back) with the
   * caller's transaction, so the event cannot be lost after the change it reports committed.
   * `data` that fails the catalog schema is dropped, and logged when an endpoint is subscribed
   * to the event (it is never thrown into the caller).
   * @returns how many deliveries were queued
   */
  publish(event: OutboundEvent, tx?: SqlExecutor): Promise<number>;
  /**
   * {@link publish} for many events at once, as one: their owners and endpoints are read and
   * their deliveries queued in a few statements, whatever their number (the verdict job's pass
   * of a storm publishes hundreds). @returns how many deliveries were queued
   */
  publishMany(events: OutboundEvent[], tx?: SqlExecutor): Promise<number>;
}

/** A rendered e-mail (email/layout.ts renders text and HTML from a template). */
export interface OutboundMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The account it concerns (its deliveries are deleted with it); null for none. */
  user_id: string | null;
  /** What it is, for the delivery log (`email.verify`, `webhook.disabled`). */
  kind: string;
}

/** What features that send e-mail need (accounts: verification; webhooks: endpoint disabled). */
export interface Mailer {
  /** True when an SMTP server is configured (VANTAGE_SMTP_URL); false: e-mails are only logged. */
  readonly configured: boolean;
  /**
   * Queue `mail` in the delivery engine (sent at least once with a stable Message-ID), inside
   * `tx` when given; without SMTP it is written to the log instead.
   * @returns `queued`, or `logged` when no SMTP server is configured
   */
  send(mail: OutboundMail, tx?: SqlExecutor): Promise<'queued' | 'logged'>;
}
