import { createHmac } from 'node:crypto';
import { cut, errcodeVerdict, JSON_HEADERS, type ChannelFormat } from './http-channel.js';

/**
 * The DingTalk robot signature (https://open.dingtalk.com/document/robots/customize-robot-security-settings):
 * base64 HMAC-SHA256 keyed with `secret` over `timestamp + "\n" + secret`, timestamp in ms.
 * @returns the `sign` query value before URL encoding
 */
export function dingtalkSign(secret: string, timestamp_ms: number): string {
  return createHmac('sha256', secret).update(`${timestamp_ms}\n${secret}`).digest('base64');
}

/**
 * DingTalk custom robot: `{msgtype: "markdown", markdown: {title, text}}` to the webhook URL,
 * with `timestamp` and URL-encoded `sign` appended when a secret is set. Answers 200
 * `{errcode, errmsg}`: 0 is success; 130101 (sending too fast) and -1 (busy) are retried.
 */
export const dingtalkFormat: ChannelFormat<'dingtalk'> = {
  type: 'dingtalk',
  build(c, n, { now }) {
    const url = new URL(c.webhook_url);
    if (c.secret) {
      const timestamp = now.getTime();
      url.searchParams.set('timestamp', String(timestamp));
      url.searchParams.set('sign', dingtalkSign(c.secret, timestamp));
    }
    const body = { msgtype: 'markdown', markdown: { title: cut(n.title || 'Vantage alert', 100), text: cut(`### ${n.title}\n\n${n.body}\n\n> ${n.severity} · ${n.event_action} · ${n.occurred_at}`, 5000) } };
    return [{ url: url.toString(), body: JSON.stringify(body), headers: { ...JSON_HEADERS } }];
  },
  accept: (_s, body) => errcodeVerdict(body, 'errcode', [130101, -1]),
};
