import { compileTemplate, renderTemplate, type TemplateModel } from '../template.js';
import { cut, type ChannelFormat } from './http-channel.js';

/** What an SMS gateway's body template can use. */
export const SMS_TEMPLATE_MODEL: TemplateModel = { Phone: 'value', Message: 'value', Title: 'value' };

/** How `{{.Field}}` values are escaped for each content type, so a message cannot break the body. */
const ESCAPES: Record<string, (v: string) => string> = {
  'application/json': (v) => JSON.stringify(v).slice(1, -1),
  'application/x-www-form-urlencoded': (v) => encodeURIComponent(v),
  'text/plain': (v) => v,
};

/** SMS text: title and body on one short message (max 500 characters). */
function smsText(title: string, body: string): string {
  return cut(body ? `${title}: ${body}` : title, 500);
}

/**
 * A configurable HTTP SMS gateway: one request per phone number, `method` to `url` with the
 * configured headers; the body is `body_template` (Go template syntax, fields `.Phone`,
 * `.Message`, `.Title`) with values escaped for `content_type`. For GET the rendered template is
 * the URL's query string. Any 2xx is success.
 */
export const smsFormat: ChannelFormat<'sms'> = {
  type: 'sms',
  build(c, n) {
    const tokens = compileTemplate(c.body_template, SMS_TEMPLATE_MODEL);
    const escape = ESCAPES[c.content_type]!;
    return c.phone_numbers.map((phone) => {
      const rendered = renderTemplate(tokens, { Phone: phone, Message: smsText(n.title, n.body), Title: n.title }, { max_chars: 8192, escape });
      const headers = { 'user-agent': 'Vantage-Alerts/1', ...c.headers, ...(c.method === 'GET' ? {} : { 'content-type': `${c.content_type}; charset=utf-8` }) };
      if (c.method !== 'GET') return { url: c.url, method: c.method, body: rendered, headers };
      const url = new URL(c.url);
      url.search = url.search ? `${url.search}&${rendered}` : rendered;
      return { url: url.toString(), method: 'GET' as const, body: '', headers };
    });
  },
};
