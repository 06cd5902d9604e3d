import { SMS_DEFAULT_BODY_TEMPLATE } from '@vantage/shared-protocol';
import { SMS_TEMPLATE_MODEL } from '../template-model.js';
import { cut, renderOrFallback } from '../template-render.js';
import type { ChannelFormat } from './http-channel.js';

/** How `{{.Field}}` values are escaped for each content type, so a message cannot break the body. */
const ESCAPES: Record<string, (v: string) => string> = {
  'application/json': (v) => JSON.stringify(v).slice(1, -1),
  'application/x-www-form-urlencoded': (v) => encodeURIComponent(v),
  'text/plain': (v) => v,
};

/** Longest SMS gateway body, characters: a longer one is not cut (it would be broken) but replaced. */
const SMS_BODY_MAX_CHARS = 8192;
/** Longest SMS text (`.Message`), characters. */
const SMS_TEXT_MAX_CHARS = 500;

/** SMS text: title and body on one short message. */
function smsText(title: string, body: string): string {
  return cut(body ? `${title}: ${body}` : title, SMS_TEXT_MAX_CHARS);
}

/**
 * A configurable HTTP SMS gateway: one request per phone number, `method` to `url` with the
 * configured headers; the body is `body_template` (Go template syntax, fields `.Phone`,
 * `.Message`, `.Title`; docs/api/alerting.md "Templates") with values escaped for
 * `content_type`, rendered within the template bounds. A body the bounds stop (longer than
 * 8192 characters) is replaced by the default template's, its message saying why, and the
 * fallback is logged. For GET the rendered template is the URL's query string. Any 2xx is success.
 */
export const smsFormat: ChannelFormat<'sms'> = {
  type: 'sms',
  build(c, n, { log }) {
    const escape = ESCAPES[c.content_type]!;
    return c.phone_numbers.map((phone) => {
      const data = { Phone: phone, Message: smsText(n.title, n.body), Title: n.title };
      const { text: rendered, fault } = renderOrFallback(c.body_template, SMS_TEMPLATE_MODEL, data, { max_chars: SMS_BODY_MAX_CHARS, overflow: 'refuse', escape }, {
        template: SMS_DEFAULT_BODY_TEMPLATE,
        data: (why) => ({ ...data, Message: cut(`[body_template not used: ${why}] ${data.Message}`, SMS_TEXT_MAX_CHARS) }),
        fixed: () => escape(data.Message),
      });
      if (fault) log.warn({ fault }, 'sms body_template not used: the default was rendered');
      const headers = { 'user-agent': 'Vantage-Alerts/1', ...c.headers, ...(c.method === 'GET' ? {} : { 'content-type': `${c.content_type}; charset=utf-8` }) };
      if (c.method !== 'GET') return { url: c.url, method: c.method, body: rendered, headers };
      const url = new URL(c.url);
      url.search = url.search ? `${url.search}&${rendered}` : rendered;
      return { url: url.toString(), method: 'GET' as const, body: '', headers };
    });
  },
};
