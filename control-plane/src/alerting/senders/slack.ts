import { cut, JSON_HEADERS, type ChannelFormat } from './http-channel.js';

/**
 * Slack incoming webhook (https://api.slack.com/messaging/webhooks): `{text, blocks}` with a
 * header block (plain text, max 150), a mrkdwn section (max 3000) and a context line; `text` is
 * the fallback shown in notifications. Slack answers 200 `ok`.
 */
export const slackFormat: ChannelFormat<'slack'> = {
  type: 'slack',
  build(c, n) {
    const body = {
      text: cut(`${n.title}\n${n.body}`, 3000),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: cut(n.title || 'Vantage alert', 150), emoji: true } },
        { type: 'section', text: { type: 'mrkdwn', text: cut(n.body || ' ', 3000) } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `*${n.severity}* · ${n.event_action} · ${n.occurred_at}` }] },
      ],
    };
    return [{ url: c.webhook_url, body: JSON.stringify(body), headers: { ...JSON_HEADERS } }];
  },
};
