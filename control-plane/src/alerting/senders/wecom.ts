import { cutBytes, errcodeVerdict, JSON_HEADERS, type ChannelFormat } from './http-channel.js';

/**
 * WeCom (企业微信) group robot (https://developer.work.weixin.qq.com/document/path/91770):
 * `{msgtype: "markdown", markdown: {content}}`, content at most 4096 UTF-8 bytes. The robot
 * answers 200 `{errcode, errmsg}`: errcode 0 is success; 45009 (rate limit) and -1 (busy) are retried.
 */
export const wecomFormat: ChannelFormat<'wecom'> = {
  type: 'wecom',
  build(c, n) {
    const content = cutBytes(`**${n.title}**\n${n.body}\n> ${n.severity} · ${n.event_action} · ${n.occurred_at}`, 4096);
    return [{ url: c.webhook_url, body: JSON.stringify({ msgtype: 'markdown', markdown: { content } }), headers: { ...JSON_HEADERS } }];
  },
  accept: (_s, body) => errcodeVerdict(body, 'errcode', [45009, -1]),
};
