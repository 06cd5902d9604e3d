import type { Logger } from '../log.js';
import type { DeliveryRow } from './deliveries.db.js';

/**
 * How one attempt ended. `retriable` failures are tried again on the retry schedule (network
 * errors, timeouts, any non-2xx answer); the others fail the delivery at once (the destination
 * is gone or disabled, the address policy refuses it, the receiver refused the message for good).
 * `response_body` is at most the first 1 KB of what the receiver answered.
 */
export type SendOutcome =
  | { ok: true; status_code: number | null; response_body: string | null; latency_ms: number | null }
  | { ok: false; retriable: boolean; error: string; status_code: number | null; response_body: string | null; latency_ms: number | null };

/** What a sender gets with each attempt. */
export interface SendContext {
  /** Aborted when the attempt's deadline passes or the worker stops. */
  signal: AbortSignal;
  log: Logger;
  /** This attempt's number, 1 for the first. */
  attempt: number;
}

/**
 * One outbound channel kind (one file per kind behind one interface, one
 * registry): `webhook` (webhooks/sender.ts), `email` (delivery/email-sender.ts); alerting adds
 * slack, pagerduty… The worker claims only rows of channels it has a sender for. A sender never
 * throws for a failed attempt: it returns the outcome (a throw is recorded as a retriable
 * internal error).
 */
export interface Sender {
  readonly channel: string;
  send(delivery: DeliveryRow, ctx: SendContext): Promise<SendOutcome>;
}

/** The sender registry: the one place that maps a channel kind to its sender. */
export type SenderRegistry = ReadonlyMap<string, Sender>;

/** Build the registry from senders; two senders for one channel is a programming error. */
export function senderRegistry(senders: Sender[]): SenderRegistry {
  const map = new Map<string, Sender>();
  for (const s of senders) {
    if (map.has(s.channel)) throw new Error(`two senders for channel ${s.channel}`);
    map.set(s.channel, s);
  }
  return map;
}

/** A failure outcome without a response (connection refused, DNS, policy, internal). */
export function failure(error: string, retriable: boolean, latency_ms: number | null = null): SendOutcome {
  return { ok: false, retriable, error, status_code: null, response_body: null, latency_ms };
}
