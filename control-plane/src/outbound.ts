import { hostname } from 'node:os';
import type { Config } from './config/index.js';
import type { EventPublisher, Mailer } from './contracts.js';
import type { Sql } from './db/sql.js';
import { createEmailSender } from './delivery/email-sender.js';
import { createOutboundConnector, type OutboundConnector } from './delivery/connector.js';
import { createOutboundHttp, type OutboundHttp } from './delivery/http-client.js';
import { createMailer } from './delivery/mailer.js';
import { createOutboundPolicy, type OutboundPolicy } from './delivery/outbound-policy.js';
import { senderRegistry, type Sender } from './delivery/sender.js';
import { createWakeSignal } from './delivery/wake.js';
import { createDeliveryWorker, type DeliveryWorker } from './delivery/worker.js';
import { createMailTransport } from './email/transport.js';
import type { Logger } from './log.js';
import { createEventRelay, type EventRelay } from './webhooks/event-relay.js';
import { createEventPublisher } from './webhooks/publisher.js';
import { createWebhookSender } from './webhooks/sender.js';
import { createSubscriberWebhookSender } from './status-pages/subscriber-sender.js';
import { createAlertSenders } from './alerting/senders/index.js';
import { createVerdictWebhookSender } from './verdicts/webhook-sender.js';

/** Everything that sends messages out of Vantage, built once per process. */
export interface Outbound {
  /** contracts.ts EventPublisher (AppDeps.events). */
  events: EventPublisher;
  /** contracts.ts Mailer (AppDeps.mail). */
  mail: Mailer;
  /** The delivery worker (claims and sends). */
  worker: DeliveryWorker;
  /** The event relay (outbox rows written by triggers → webhook deliveries). */
  relay: EventRelay;
  policy: OutboundPolicy;
  /**
   * The one way this process connects to other hosts (delivery/connector.ts): the delivery
   * engine's HTTP client and the registry look-ups of domain_expiry use it; so must anything
   * new that connects out.
   */
  connector: OutboundConnector;
  /** Start the relay and the worker (after migrations; main.ts after listen). */
  start(): Promise<void>;
  /** Stop the relay and the worker (attempts under way get `grace_ms`), then close the connector's pool and SMTP connections. */
  close(grace_ms?: number): Promise<void>;
}

/**
 * Composition root of outbound delivery (docs/architecture/delivery.md): the wake signal, the
 * address policy and the connector every outbound connection goes through, the HTTP client,
 * the mailer and event publisher (queue side) and the worker with one sender per channel, and
 * the event relay (outbox rows of the triggers → deliveries): `webhook` always, `email` when
 * `smtp_url` is set, and one `alert.<type>` sender per alert channel type (alerting/senders/).
 * Tests add senders with `extra_senders`. The SMTP transport alone connects without the
 * connector: its one host is the operator's `smtp_url` (often a relay on loopback or the LAN),
 * never an address a user supplies (recipients only go into the SMTP envelope).
 * Construction only: nothing is claimed until `start()`.
 * @param opts.listen LISTEN/NOTIFY wake-ups (default: when a database server URL is configured; PGlite delivers no NOTIFY)
 */
export function createOutbound(
  deps: { sql: Sql; log: Logger; config: Config },
  opts: { extra_senders?: Sender[]; listen?: boolean; policy?: OutboundPolicy } = {},
): Outbound {
  const { sql, log, config } = deps;
  const signal = createWakeSignal();
  const policy = opts.policy ?? createOutboundPolicy(config);
  const connector = createOutboundConnector(policy);
  const http: OutboundHttp = createOutboundHttp(connector);
  const transport = createMailTransport(config);
  const mail = createMailer({ sql, log, config, signal });
  const events = createEventPublisher({ sql, log, config, signal });
  const senders = senderRegistry([
    createWebhookSender({ sql, config, http, mail }),
    createSubscriberWebhookSender({ sql, config, http }),
    createVerdictWebhookSender({ sql, config, http }),
    ...(transport ? [createEmailSender(transport)] : []),
    ...createAlertSenders({ sql, config, http, transport }),
    ...(opts.extra_senders ?? []),
  ]);
  const listen = opts.listen ?? Boolean(config.database_url);
  const worker = createDeliveryWorker({
    sql, log, config, senders, signal, listen,
    instance_id: config.instance_id ?? `${hostname()}-${process.pid}`,
  });
  // The relay has its own wake signal: the worker's wakes (one per finished attempt) must not spin it.
  const relay = createEventRelay({ sql, log, config, events, signal: createWakeSignal(), listen });
  let started = false;
  return {
    events, mail, worker, relay, policy, connector,
    async start() {
      started = true;
      await relay.start();
      await worker.start();
    },
    async close(grace_ms) {
      if (started) await relay.stop();
      await worker.stop(grace_ms);
      await connector.close().catch(() => {});
      transport?.close();
    },
  };
}
