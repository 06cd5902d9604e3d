import { cut, JSON_HEADERS, type ChannelFormat } from './http-channel.js';

const COLOURS = { critical: 0xd32f2f, error: 0xf57c00, warning: 0xfbc02d, info: 0x1976d2 } as const;
const RESOLVED = 0x388e3c;

/**
 * Discord execute-webhook (https://discord.com/developers/docs/resources/webhook#execute-webhook):
 * `{content, embeds}` (content max 2000; embed title max 256, description max 4096), no mentions
 * parsed; `wait=true` so Discord answers 200 with the message once it is stored.
 */
export const discordFormat: ChannelFormat<'discord'> = {
  type: 'discord',
  build(c, n) {
    const url = new URL(c.webhook_url);
    url.searchParams.set('wait', 'true');
    const body = {
      content: cut(n.title, 2000),
      embeds: [{
        title: cut(n.title || 'Vantage alert', 256), description: cut(n.body, 4096),
        color: n.event_action === 'resolve' ? RESOLVED : COLOURS[n.severity],
        timestamp: n.occurred_at, footer: { text: `Vantage · ${n.event_action}` },
      }],
      allowed_mentions: { parse: [] },
    };
    return [{ url: url.toString(), body: JSON.stringify(body), headers: { ...JSON_HEADERS } }];
  },
};
