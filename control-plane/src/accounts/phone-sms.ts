import { randomUUID } from 'node:crypto';
import { smsChannelConfigSchema, type AlertNotification } from '@vantage/shared-protocol';
import { smsFormat } from '../alerting/senders/sms.js';
import type { Config } from '../config/index.js';
import { createOutboundConnector } from '../delivery/connector.js';
import { createOutboundHttp } from '../delivery/http-client.js';
import { createOutboundPolicy } from '../delivery/outbound-policy.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';

/** The setting that configures the gateway, named in errors. */
const GATEWAY_SETTING = 'VANTAGE_SMS_GATEWAY_URL';

/** What the gateway settings need of the configuration. */
export type SmsGatewayConfig = Pick<Config,
  'sms_gateway_url' | 'sms_gateway_method' | 'sms_gateway_content_type' | 'sms_gateway_body_template' | 'sms_gateway_headers'
  | 'delivery_timeout_ms' | 'delivery_allow_cidrs' | 'probe_allow_cidrs'>;

/**
 * Refuse when no SMS gateway is configured (phone binding is then impossible).
 * @throws ApiError UNAVAILABLE (503) with `details.setting` VANTAGE_SMS_GATEWAY_URL
 */
export function requireSmsGateway(config: Pick<Config, 'sms_gateway_url'>): string {
  if (config.sms_gateway_url) return config.sms_gateway_url;
  throw new ApiError('UNAVAILABLE', 'no SMS gateway is configured on this deployment, so phone numbers cannot be verified', { setting: GATEWAY_SETTING });
}

/**
 * Send `text` to `phone` (E.164) through the deployment's SMS gateway (config/lifecycle.ts
 * `sms_gateway_*`), built exactly as an `sms` alert channel's request (alerting/senders/sms.ts:
 * body template with `.Phone`, `.Message`, `.Title`, values escaped for the content type) and
 * sent with the delivery engine's HTTP client under the outbound address policy (no redirects,
 * `delivery_timeout_ms`). Synchronous: the caller learns at once whether the gateway took it.
 * Any 2xx answer is success.
 * @throws ApiError UNAVAILABLE (503): no gateway configured (`details.setting`), its settings
 *   are invalid, or it refused, failed or could not be reached (`details.reason`)
 */
export async function sendSms(deps: { config: SmsGatewayConfig; log: Logger }, phone: string, text: string): Promise<void> {
  const { config } = deps;
  const url = requireSmsGateway(config);
  const headers = Object.fromEntries(config.sms_gateway_headers.map((h) => {
    const i = h.indexOf(':');
    return [h.slice(0, i).trim(), h.slice(i + 1).trim()];
  }));
  const parsed = smsChannelConfigSchema.safeParse({
    url, method: config.sms_gateway_method, content_type: config.sms_gateway_content_type, headers,
    phone_numbers: [phone], ...(config.sms_gateway_body_template ? { body_template: config.sms_gateway_body_template } : {}),
  });
  if (!parsed.success) {
    deps.log.error({ issues: parsed.error.issues }, 'the SMS gateway settings are invalid');
    throw new ApiError('UNAVAILABLE', 'the SMS gateway settings of this deployment are invalid', { setting: GATEWAY_SETTING });
  }
  const n: AlertNotification = {
    kind: 'alert', event_action: 'trigger', dedup_key: `phone-${randomUUID()}`, title: 'Vantage', body: text, severity: 'info',
    occurred_at: new Date().toISOString(), monitor: null, event_id: null, policy_id: null,
  };
  const [req] = smsFormat.build(parsed.data, n, { message_id: n.dedup_key, now: new Date(), log: deps.log });
  // One connection pool per message, closed after it: verification SMS are rare.
  const connector = createOutboundConnector(createOutboundPolicy(config), { keep_alive_ms: 1000 });
  try {
    const res = await createOutboundHttp(connector).post(req!.url, req!.body, req!.headers, { timeout_ms: config.delivery_timeout_ms, method: req!.method });
    if (res.kind === 'response' && res.status_code >= 200 && res.status_code < 300) return;
    // The caller learns the kind of failure; the log keeps the gateway's own words.
    const reason = res.kind === 'error' ? (res.refused ? 'refused by the outbound address policy' : 'unreachable') : `HTTP ${res.status_code}`;
    deps.log.warn({ reason, error: res.kind === 'error' ? res.error : res.response_body }, 'the SMS gateway did not take a message');
    throw new ApiError('UNAVAILABLE', 'the SMS gateway did not accept the message; try again later', { reason });
  } finally {
    await connector.close().catch(() => {});
  }
}
