import { ALERT_CHANNEL_CONFIG_SCHEMAS, ALERT_CHANNEL_SECRET_FIELDS, fieldIssues, maskChannelConfig, maskChannelSecret, type AlertChannelType } from '@vantage/shared-protocol';
import { refusalDetails, refuseOutboundUrl, type OutboundPolicy } from '../delivery/outbound-policy.js';
import { ApiError } from '../errors.js';
import { tryCompileTemplate } from './template.js';
import { CHANNEL_TEMPLATE_FIELDS } from './template-model.js';

/** The config fields of each type that are outbound URLs (checked against the address policy). */
const URL_FIELDS: Record<AlertChannelType, readonly string[]> = {
  email: [], webhook: ['url'], slack: ['webhook_url'], discord: ['webhook_url'], telegram: ['api_base_url'],
  wecom: ['webhook_url'], dingtalk: ['webhook_url'], feishu: ['webhook_url'], wechat: ['api_base_url'],
  sms: ['url'], pagerduty: ['api_url'],
};

/**
 * Parse `raw` with the type's config schema (shared-protocol channel-configs.ts: defaults filled),
 * compile its templates against their data model (CHANNEL_TEMPLATE_FIELDS: an SMS
 * `body_template` may use `.Phone`, `.Message` and `.Title`, within ALERT_TEMPLATE_LIMITS) and
 * check its URLs against the outbound address policy.
 * @throws ApiError ALERT_CHANNEL_INVALID (400) with `details.fields` naming each bad field as `config.<path>`,
 *   and `details.setting` (VANTAGE_DELIVERY_ALLOW_CIDRS) when the address policy refused a URL
 */
export async function validateChannelConfig(type: AlertChannelType, raw: unknown, policy: OutboundPolicy): Promise<Record<string, unknown>> {
  const parsed = ALERT_CHANNEL_CONFIG_SCHEMAS[type].safeParse(raw);
  if (!parsed.success) {
    const fields = fieldIssues(parsed.error).map((f) => ({ path: f.path ? `config.${f.path}` : 'config', message: f.message }));
    throw new ApiError('ALERT_CHANNEL_INVALID', `${fields[0]?.path ?? 'config'}: ${fields[0]?.message ?? 'invalid'}`, { fields });
  }
  const config = parsed.data as Record<string, unknown>;
  for (const [field, model] of Object.entries(CHANNEL_TEMPLATE_FIELDS[type] ?? {})) {
    const source = config[field];
    const compiled = typeof source === 'string' ? tryCompileTemplate(source, model) : null;
    if (compiled && !compiled.ok) throw new ApiError('ALERT_CHANNEL_INVALID', `config.${field}: ${compiled.fault}`, { fields: [{ path: `config.${field}`, message: compiled.fault }] });
  }
  for (const field of URL_FIELDS[type]) {
    const url = config[field];
    if (typeof url !== 'string') continue;
    const refusal = await refuseOutboundUrl(url, policy);
    if (refusal) throw new ApiError('ALERT_CHANNEL_INVALID', `config.${field}: ${refusal.reason}`, refusalDetails(`config.${field}`, refusal));
  }
  return config;
}

/** `****` and the last 4 characters (nothing of a value of 8 characters or fewer). */
export const maskSecret = maskChannelSecret;

/** The config as the API returns it: every secret field (ALERT_CHANNEL_SECRET_FIELDS) masked. */
export const maskConfig = maskChannelConfig;

/**
 * A PATCH's config over the stored one, field by field: a field given replaces the stored value,
 * except a secret sent back exactly as the API shows it masked (a client echoing a GET), which
 * keeps the stored secret. A field given as null is removed (an optional secret turned off).
 */
export function mergeConfig(type: AlertChannelType, stored: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const masked = maskConfig(type, stored);
  const out: Record<string, unknown> = { ...stored };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (ALERT_CHANNEL_SECRET_FIELDS[type].includes(k) && JSON.stringify(v) === JSON.stringify(masked[k])) continue;
    else out[k] = v;
  }
  return out;
}
