import { cut, JSON_HEADERS, type ChannelFormat, type Verdict } from './http-channel.js';

/**
 * Telegram Bot API sendMessage (https://core.telegram.org/bots/api#sendmessage): POST
 * `{api_base_url}/bot<token>/sendMessage` with `{chat_id, text}` (plain text, max 4096, so no
 * Markdown escaping can break it). The answer is `{ok: true, result}`.
 */
export const telegramFormat: ChannelFormat<'telegram'> = {
  type: 'telegram',
  build(c, n) {
    const base = c.api_base_url.replace(/\/+$/, '');
    const body = { chat_id: c.chat_id, text: cut(`${n.title}\n\n${n.body}`, 4096), disable_web_page_preview: true };
    return [{ url: `${base}/bot${c.bot_token}/sendMessage`, body: JSON.stringify(body), headers: { ...JSON_HEADERS } }];
  },
  accept(_status, body): Verdict {
    try {
      const parsed = JSON.parse(body) as { ok?: unknown; description?: unknown };
      return parsed.ok === true ? { ok: true } : { ok: false, retriable: false, error: `telegram: ${String(parsed.description ?? 'ok is not true')}` };
    } catch {
      return { ok: false, retriable: true, error: 'telegram: the answer is not JSON' };
    }
  },
};
