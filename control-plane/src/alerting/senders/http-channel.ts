import { ALERT_CHANNEL_CONFIG_SCHEMAS, alertNotificationSchema, type AlertChannelConfig, type AlertChannelType, type AlertNotification } from '@vantage/shared-protocol';
import type { Config } from '../../config/index.js';
import type { Sql } from '../../db/sql.js';
import type { DeliveryRow } from '../../delivery/deliveries.db.js';
import type { HttpResult, OutboundHttp } from '../../delivery/http-client.js';
import type { Logger } from '../../log.js';
import { failure, type Sender, type SendContext, type SendOutcome } from '../../delivery/sender.js';
import { getChannelById, markVerified, type AlertChannelRow } from '../alert-channels.db.js';
import type { ChannelLoader } from './channel-loader.js';
import { deliveryChannel } from '../notify.js';

/** One HTTP request of a notification. */
export interface ChannelRequest {
  url: string;
  method?: 'POST' | 'PUT' | 'GET';
  body: string;
  headers: Record<string, string>;
}

/** A service's verdict on a 2xx answer (chat robots answer 200 with an error code in the body). */
export type Verdict = { ok: true } | { ok: false; retriable: boolean; error: string };

/**
 * How one channel type talks to its service (one file per type): the requests of a notification
 * and, where the service reports errors inside a 2xx answer, how to read it.
 */
export interface ChannelFormat<T extends AlertChannelType> {
  type: T;
  /** `ctx.log` is bound to the channel and delivery ids (a format that renders a channel template logs its fallbacks there). */
  build(config: AlertChannelConfig<T>, n: AlertNotification, ctx: { message_id: string; now: Date; log: Logger }): ChannelRequest[];
  /** Judge a 2xx answer's body; default: success. */
  accept?(status_code: number, body: string): Verdict;
}

/** What an alert channel sender reads and sends with. */
export interface AlertSenderDeps {
  sql: Sql;
  /** Batches the channel reads of sends started together (channel-loader.ts); without it each send reads its own. */
  channels?: ChannelLoader;
  config: Pick<Config, 'delivery_timeout_ms'>;
  http: OutboundHttp;
}

export { cut } from '../template-render.js';

/** Cut `text` so its UTF-8 encoding is at most `max_bytes` (WeCom counts bytes). */
export function cutBytes(text: string, max_bytes: number): string {
  if (Buffer.byteLength(text) <= max_bytes) return text;
  let out = text.slice(0, max_bytes);
  while (Buffer.byteLength(out) > max_bytes - 3) out = out.slice(0, -1);
  return `${out}…`;
}

/** A robot's JSON answer `{<field>: 0}` means success; another value fails (retried when `busy` lists it). */
export function errcodeVerdict(body: string, field: string, busy: number[]): Verdict {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return { ok: false, retriable: true, error: 'the answer is not JSON' };
  }
  const code = parsed[field];
  if (code === 0) return { ok: true };
  const msg = parsed.errmsg ?? parsed.msg ?? parsed.message ?? parsed.description ?? '';
  return { ok: false, retriable: typeof code === 'number' && busy.includes(code), error: `${field} ${String(code)}${msg ? `: ${String(msg)}` : ''}` };
}

/**
 * A non-2xx answer: 408, 425, 429 and 5xx are retried (the service is busy or down); any other
 * 4xx fails at once (the webhook is gone, the token or payload is refused: retrying cannot help).
 */
function httpOutcome(res: HttpResult, accept: ChannelFormat<AlertChannelType>['accept']): SendOutcome {
  if (res.kind === 'error') return { ok: false, retriable: !res.refused, error: res.error, status_code: null, response_body: null, latency_ms: res.latency_ms };
  const base = { status_code: res.status_code, response_body: res.response_body, latency_ms: res.latency_ms };
  if (res.status_code >= 200 && res.status_code < 300) {
    const v = accept ? accept(res.status_code, res.response_body) : { ok: true as const };
    return v.ok ? { ok: true, ...base } : { ok: false, retriable: v.retriable, error: v.error, ...base };
  }
  const retriable = [408, 425, 429].includes(res.status_code) || res.status_code >= 500;
  return { ok: false, retriable, error: `HTTP ${res.status_code}`, ...base };
}

/**
 * Read the delivery's channel and notification, or the reason it cannot be sent (fails at once:
 * the channel was deleted, or the row is not what this sender sends).
 */
export async function loadDelivery(deps: Pick<AlertSenderDeps, 'sql' | 'channels'>, delivery: DeliveryRow, type: AlertChannelType): Promise<{ channel: AlertChannelRow; n: AlertNotification } | SendOutcome> {
  const channel = deps.channels ? await deps.channels.load(delivery.destination) : await getChannelById(deps.sql, delivery.destination);
  if (!channel) return failure('the alert channel was deleted', false);
  if (channel.type !== type) return failure(`the alert channel is now of type ${channel.type}`, false);
  const n = alertNotificationSchema.safeParse(delivery.payload);
  if (!n.success) return failure(`invalid notification payload: ${n.error.issues[0]?.message ?? 'unknown'}`, false);
  return { channel, n: n.data };
}

/** After a successful test notification the channel is verified (unless its config changed since). */
export async function afterSuccess(sql: Sql, delivery: DeliveryRow, n: AlertNotification, channel: AlertChannelRow, ctx: SendContext): Promise<void> {
  if (n.kind !== 'test') return;
  await markVerified(sql, channel.id, delivery.created_at).catch((err: unknown) => ctx.log.warn({ err, channel_id: channel.id }, 'could not mark the alert channel verified'));
}

type ParsedConfig = ReturnType<(typeof ALERT_CHANNEL_CONFIG_SCHEMAS)[AlertChannelType]['safeParse']>;
/** Channel rows' configs as parsed, per row object: the sends of one claim share the row the loader read. */
const parsedConfigs = new WeakMap<AlertChannelRow, ParsedConfig>();

/** `channel.config` checked against its type's schema, once per row object read. */
function parsedConfig(channel: AlertChannelRow, type: AlertChannelType): ParsedConfig {
  let parsed = parsedConfigs.get(channel);
  if (!parsed) parsedConfigs.set(channel, parsed = ALERT_CHANNEL_CONFIG_SCHEMAS[type].safeParse(channel.config));
  return parsed;
}

/**
 * The sender of an HTTP channel type (delivery channel `alert.<type>`): reads the channel at
 * send time (a config change applies to retries), sends each request of `format.build` through
 * the delivery engine's HTTP client (address policy at every connection, no redirects, bounded
 * time) and classifies the answer. Every request must succeed; a retry sends them all again.
 */
export function createHttpChannelSender<T extends AlertChannelType>(format: ChannelFormat<T>, deps: AlertSenderDeps): Sender {
  return {
    channel: deliveryChannel(format.type),
    async send(delivery, ctx): Promise<SendOutcome> {
      const loaded = await loadDelivery(deps, delivery, format.type);
      if (!('channel' in loaded)) return loaded;
      const { channel, n } = loaded;
      const parsed = parsedConfig(channel, format.type);
      if (!parsed.success) return failure(`the channel's stored config is invalid: ${parsed.error.issues[0]?.message ?? 'unknown'}`, false);
      const log = ctx.log.child({ channel_id: channel.id, delivery_id: delivery.id });
      const requests = format.build(parsed.data as AlertChannelConfig<T>, n, { message_id: delivery.message_id, now: new Date(), log });
      let outcome: SendOutcome = failure('nothing to send', false);
      for (const req of requests) {
        const res = await deps.http.post(req.url, req.body, req.headers, { timeout_ms: deps.config.delivery_timeout_ms, signal: ctx.signal, method: req.method });
        outcome = httpOutcome(res, format.accept as ChannelFormat<AlertChannelType>['accept']);
        if (!outcome.ok) return outcome;
      }
      if (outcome.ok) await afterSuccess(deps.sql, delivery, n, channel, ctx);
      return outcome;
    },
  };
}

/** JSON request headers. */
export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Vantage-Alerts/1' } as const;
