import { createHmac } from 'node:crypto';
import { cut, errcodeVerdict, JSON_HEADERS, type ChannelFormat } from './http-channel.js';

/**
 * The Feishu/Lark bot signature (https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot):
 * base64 HMAC-SHA256 keyed with `timestamp + "\n" + secret` over an empty message, timestamp in seconds.
 */
export function feishuSign(secret: string, timestamp_s: number): string {
  return createHmac('sha256', `${timestamp_s}\n${secret}`).update('').digest('base64');
}

/**
 * Feishu custom bot: a rich-text `post` message `{msg_type: "post", content: {post: {zh_cn:
 * {title, content}}}}` with `timestamp` and `sign` in the body when a secret is set. Answers 200
 * `{code, msg}`: 0 is success; 9499 and 11232 (rate limits) are retried.
 */
export const feishuFormat: ChannelFormat<'feishu'> = {
  type: 'feishu',
  build(c, n, { now }) {
    const timestamp = Math.floor(now.getTime() / 1000);
    const lines = cut(n.body, 10_000).split('\n').map((line) => [{ tag: 'text', text: line }]);
    lines.push([{ tag: 'text', text: `${n.severity} · ${n.event_action} · ${n.occurred_at}` }]);
    const body = {
      ...(c.secret ? { timestamp: String(timestamp), sign: feishuSign(c.secret, timestamp) } : {}),
      msg_type: 'post',
      content: { post: { zh_cn: { title: cut(n.title, 200), content: lines } } },
    };
    return [{ url: c.webhook_url, body: JSON.stringify(body), headers: { ...JSON_HEADERS } }];
  },
  accept: (_s, body) => {
    const v = errcodeVerdict(body, 'code', [9499, 11232]);
    // Older Feishu bots answer {StatusCode: 0, StatusMessage: "success"}.
    return v.ok || !/"StatusCode":0\b/.test(body) ? v : { ok: true };
  },
};
