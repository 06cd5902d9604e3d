import { z } from 'zod';
import { textString } from '../parse.js';
import { httpHeadersSchema } from '../http-headers.js';

/*
 * One config schema per alert channel type (docs/api/alerting.md "Channel types"). Each follows
 * the service's documented API; the fields named in ALERT_CHANNEL_SECRET_FIELDS are secrets:
 * stored as given, used to send, and only ever returned masked.
 */

/** An http(s) URL without user name or password, at most 2048 characters. */
export const channelUrlSchema = textString().trim().max(2048)
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }))
  .refine((u) => { try { const p = new URL(u); return p.username === '' && p.password === ''; } catch { return false; } }, { message: 'must not contain a user name or password' });

const secretString = (max: number) => textString().trim().min(1).max(max);

/**
 * `email`: the addresses that receive the notification (1-10), sent through the deployment's SMTP server.
 * @example { "to": ["oncall@example.com"] }
 */
export const emailChannelConfigSchema = z.strictObject({
  to: z.array(z.email().max(320)).min(1).max(10),
});

/**
 * `webhook`: a JSON POST signed per the Standard Webhooks specification (like webhook
 * endpoints, docs/api/webhooks.md) with `secret`: `whsec_` + base64 of 24-64 random bytes.
 * Omitted on create, the control plane generates one and returns it once (alertChannelCreatedSchema).
 * @example { "url": "https://hooks.example.com/vantage", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }
 */
export const webhookChannelConfigSchema = z.strictObject({
  url: channelUrlSchema,
  secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, 'must be whsec_ followed by the base64 of 24-64 random bytes'),
});

/**
 * `slack`: a Slack incoming-webhook URL (https://api.slack.com/messaging/webhooks); messages are `{text, blocks}`.
 * @example { "webhook_url": "https://hooks.slack.com/services/T000/B000/XXXX" }
 */
export const slackChannelConfigSchema = z.strictObject({ webhook_url: channelUrlSchema });

/**
 * `discord`: a Discord webhook URL (https://discord.com/developers/docs/resources/webhook#execute-webhook); messages are `{content, embeds}`.
 * @example { "webhook_url": "https://discord.com/api/webhooks/123/abc" }
 */
export const discordChannelConfigSchema = z.strictObject({ webhook_url: channelUrlSchema });

/**
 * `telegram`: Bot API sendMessage (https://core.telegram.org/bots/api#sendmessage) with the bot's
 * token and the target chat (numeric id or `@channelusername`); `api_base_url` for a local Bot API server.
 * @example { "bot_token": "123456:ABC-DEF", "chat_id": "-1001234567890" }
 */
export const telegramChannelConfigSchema = z.strictObject({
  bot_token: z.string().regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, 'must be a bot token like 123456789:AA…'),
  chat_id: z.union([z.number().int(), z.string().regex(/^(-?\d{1,20}|@[A-Za-z0-9_]{4,64})$/, 'must be a numeric chat id or @channelusername')]).transform(String),
  api_base_url: channelUrlSchema.default('https://api.telegram.org'),
});

/**
 * `wecom`: a WeCom (企业微信) group robot webhook URL (https://developer.work.weixin.qq.com/document/path/91770); messages are `{msgtype: "markdown"}`.
 * @example { "webhook_url": "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-…" }
 */
export const wecomChannelConfigSchema = z.strictObject({ webhook_url: channelUrlSchema });

/**
 * `dingtalk`: a DingTalk custom robot webhook URL (with its access_token) and, when the robot uses
 * the signing security setting, its `secret` (`SEC…`): each request then carries `timestamp` and
 * `sign` (https://open.dingtalk.com/document/robots/customize-robot-security-settings).
 * @example { "webhook_url": "https://oapi.dingtalk.com/robot/send?access_token=abc", "secret": "SEC0123…" }
 */
export const dingtalkChannelConfigSchema = z.strictObject({
  webhook_url: channelUrlSchema,
  secret: secretString(256).optional(),
});

/**
 * `feishu`: a Feishu/Lark custom bot webhook URL and, when signature verification is on, its
 * `secret`: each body then carries `timestamp` and `sign` (https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot).
 * @example { "webhook_url": "https://open.feishu.cn/open-apis/bot/v2/hook/xxxx", "secret": "abc" }
 */
export const feishuChannelConfigSchema = z.strictObject({
  webhook_url: channelUrlSchema,
  secret: secretString(256).optional(),
});

/**
 * `wechat`: personal WeChat through ServerChan (Server酱 Turbo, https://sct.ftqq.com): a POST of
 * `{title, desp}` to `{api_base_url}/{sendkey}.send`.
 * @example { "sendkey": "SCT123456TxxxxxxxxXXXX" }
 */
export const wechatChannelConfigSchema = z.strictObject({
  sendkey: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/, 'must be a ServerChan SendKey'),
  api_base_url: channelUrlSchema.default('https://sctapi.ftqq.com'),
});

/** The SMS body template when a channel gives none (and the one rendered when a channel's cannot be). */
export const SMS_DEFAULT_BODY_TEMPLATE = '{"to":"{{.Phone}}","message":"{{.Message}}"}';

/** Longest SMS `body_template`, characters. */
export const SMS_BODY_TEMPLATE_MAX_CHARS = 4096;

/**
 * `sms`: any HTTP SMS gateway. For each number in `phone_numbers` one request of `method` to `url`
 * with `headers` and `body_template` rendered with `{{.Phone}}`, `{{.Message}}`, `{{.Title}}`
 * (values escaped for `content_type`: JSON string contents, form-urlencoded, or as is).
 * Header values are secrets (API keys).
 * @example { "url": "https://sms.example.com/send", "phone_numbers": ["+8613800000000"], "body_template": "{\"to\":\"{{.Phone}}\",\"text\":\"{{.Message}}\"}" }
 */
export const smsChannelConfigSchema = z.strictObject({
  url: channelUrlSchema,
  method: z.enum(['POST', 'PUT', 'GET']).default('POST'),
  headers: httpHeadersSchema().default({}),
  content_type: z.enum(['application/json', 'application/x-www-form-urlencoded', 'text/plain']).default('application/json'),
  body_template: textString().max(SMS_BODY_TEMPLATE_MAX_CHARS).default(SMS_DEFAULT_BODY_TEMPLATE),
  phone_numbers: z.array(z.string().regex(/^\+?[0-9]{5,20}$/, 'must be a phone number (digits, optional leading +)')).min(1).max(10),
});

/**
 * `pagerduty`: Events API v2 (https://developer.pagerduty.com/docs/events-api-v2/overview):
 * trigger, acknowledge and resolve with a dedup key per alert. `routing_key` is the service's
 * integration key; `api_url` for the EU region; `severity` of triggers.
 * @example { "routing_key": "R0123456789ABCDEF0123456789ABCDE" }
 */
export const pagerdutyChannelConfigSchema = z.strictObject({
  routing_key: z.string().regex(/^[A-Za-z0-9]{32}$/, 'must be a 32-character integration key'),
  api_url: channelUrlSchema.default('https://events.pagerduty.com/v2/enqueue'),
  severity: z.enum(['critical', 'error', 'warning', 'info']).default('critical'),
});

/** The channel types and their config schemas: the one map of types (docs/api/alerting.md). */
export const ALERT_CHANNEL_CONFIG_SCHEMAS = {
  email: emailChannelConfigSchema,
  webhook: webhookChannelConfigSchema,
  slack: slackChannelConfigSchema,
  discord: discordChannelConfigSchema,
  telegram: telegramChannelConfigSchema,
  wecom: wecomChannelConfigSchema,
  dingtalk: dingtalkChannelConfigSchema,
  feishu: feishuChannelConfigSchema,
  wechat: wechatChannelConfigSchema,
  sms: smsChannelConfigSchema,
  pagerduty: pagerdutyChannelConfigSchema,
} as const;

/** A channel type. */
export type AlertChannelType = keyof typeof ALERT_CHANNEL_CONFIG_SCHEMAS;
export const ALERT_CHANNEL_TYPES = Object.keys(ALERT_CHANNEL_CONFIG_SCHEMAS) as [AlertChannelType, ...AlertChannelType[]];

/** A parsed (defaults filled) config of channel type `T`. */
export type AlertChannelConfig<T extends AlertChannelType = AlertChannelType> = z.output<(typeof ALERT_CHANNEL_CONFIG_SCHEMAS)[T]>;

/**
 * The secret fields of each type: never returned in full (masked to their last 4 characters;
 * URLs keep scheme and host). `headers` masks every header value.
 */
export const ALERT_CHANNEL_SECRET_FIELDS: Record<AlertChannelType, readonly string[]> = {
  email: [], webhook: ['secret'], slack: ['webhook_url'], discord: ['webhook_url'], telegram: ['bot_token'],
  wecom: ['webhook_url'], dingtalk: ['webhook_url', 'secret'], feishu: ['webhook_url', 'secret'], wechat: ['sendkey'],
  sms: ['headers'], pagerduty: ['routing_key'],
};
