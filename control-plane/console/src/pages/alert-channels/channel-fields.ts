import type { AlertChannelType } from '@vantage/shared-protocol';
import type { MessageKey } from '../../i18n/i18n.js';

/** One config field of a channel type as the form asks for it: `list` is comma-separated into an array, `secret` is a password input. */
export interface ChannelField { key: string; label: MessageKey; kind: 'text' | 'list' | 'secret'; required: boolean }

const url = (key: string, kind: ChannelField['kind'] = 'secret'): ChannelField => ({ key, label: 'channels.field.webhook_url', kind, required: true });

/**
 * The channel types the form creates and their config fields (docs/api/alerting.md "Channel
 * types"; the API checks them with shared-protocol's channel config schemas). SMS gateways, with
 * their request templates, are created through the API.
 */
export const CHANNEL_FORMS: Partial<Record<AlertChannelType, ChannelField[]>> = {
  email: [{ key: 'to', label: 'channels.field.to', kind: 'list', required: true }],
  webhook: [{ key: 'url', label: 'channels.field.url', kind: 'text', required: true }],
  slack: [url('webhook_url')],
  discord: [url('webhook_url')],
  telegram: [{ key: 'bot_token', label: 'channels.field.bot_token', kind: 'secret', required: true }, { key: 'chat_id', label: 'channels.field.chat_id', kind: 'text', required: true }],
  pagerduty: [{ key: 'routing_key', label: 'channels.field.routing_key', kind: 'secret', required: true }],
  wecom: [url('webhook_url')],
  dingtalk: [url('webhook_url'), { key: 'secret', label: 'channels.field.secret', kind: 'secret', required: false }],
  feishu: [url('webhook_url'), { key: 'secret', label: 'channels.field.secret', kind: 'secret', required: false }],
  wechat: [{ key: 'sendkey', label: 'channels.field.sendkey', kind: 'secret', required: true }],
};

/** The API's `config` from the form's values: lists split on commas, empty optional fields left out. */
export function channelConfig(fields: ChannelField[], values: Record<string, string>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const f of fields) {
    const v = (values[f.key] ?? '').trim();
    if (!v) continue;
    config[f.key] = f.kind === 'list' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v;
  }
  return config;
}

/** The form's values of a stored channel's config: lists joined with commas; secrets left empty (the API shows them masked only). */
export function channelValues(fields: ChannelField[], config: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const f of fields) {
    const v = config[f.key];
    if (f.kind === 'secret' || v == null) continue;
    values[f.key] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return values;
}

/**
 * The `config` of a PATCH (docs/api/alerting.md "Channels": merged over the stored one field by
 * field): an empty secret is left out, so the stored one is kept; an emptied optional field is
 * `null`, which removes it; the rest as on create.
 */
export function channelPatchConfig(fields: ChannelField[], values: Record<string, string>): Record<string, unknown> {
  const config = channelConfig(fields, values);
  for (const f of fields) if (!(f.key in config) && f.kind !== 'secret' && !f.required) config[f.key] = null;
  return config;
}
