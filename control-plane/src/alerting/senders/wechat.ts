import { cut, errcodeVerdict, JSON_HEADERS, type ChannelFormat } from './http-channel.js';

/**
 * WeChat through ServerChan (Server酱 Turbo, https://sct.ftqq.com): POST
 * `{api_base_url}/{sendkey}.send` with `{title, desp}` (title max 32 characters, desp Markdown
 * max 32 KB), pushed to the owner's WeChat. Answers `{code, message}`: 0 is success.
 */
export const wechatFormat: ChannelFormat<'wechat'> = {
  type: 'wechat',
  build(c, n) {
    const base = c.api_base_url.replace(/\/+$/, '');
    const body = { title: cut(n.title || 'Vantage alert', 32), desp: cut(`${n.body}\n\n> ${n.severity} · ${n.event_action} · ${n.occurred_at}`, 32_000) };
    return [{ url: `${base}/${c.sendkey}.send`, body: JSON.stringify(body), headers: { ...JSON_HEADERS } }];
  },
  accept: (_s, body) => errcodeVerdict(body, 'code', []),
};
