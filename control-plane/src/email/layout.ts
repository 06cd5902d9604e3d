/*
 * The one e-mail layout: every message Vantage sends (verification, endpoint disabled, alert
 * notifications, opt-in requests) is a template that fills these parts, and gets a plain-text and an HTML
 * body that say the same thing. Templates live with the feature that sends them
 * (accounts/verification-email.ts, webhooks/disabled-email.ts).
 */

/** What a template fills in. Text is plain (escaped for HTML here); `action` renders as a link/button. */
export interface EmailContent {
  subject: string;
  /** Paragraphs of plain text, in order. */
  paragraphs: string[];
  /** One call to action: a label and an absolute URL, shown after the paragraphs. */
  action?: { label: string; url: string };
  /** A last line in small print (why the reader got this). */
  footer?: string;
  /** Where the reader stops these e-mails (a one-click link: alert e-mails), shown after the footer. */
  unsubscribe_url?: string;
}

/** A rendered e-mail: subject, text/plain and text/html bodies. */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}

/**
 * Render `content` as text and HTML (inline styles only: mail clients ignore style sheets).
 * Headers never carry line breaks from content: the subject is folded to one line.
 */
export function renderEmail(content: EmailContent): RenderedEmail {
  const subject = content.subject.replace(/[\r\n]+/g, ' ').trim();
  const text = [
    ...content.paragraphs,
    ...(content.action ? [`${content.action.label}: ${content.action.url}`] : []),
    ...(content.footer || content.unsubscribe_url ? ['--'] : []),
    ...(content.footer ? [content.footer] : []),
    ...(content.unsubscribe_url ? [`Unsubscribe: ${content.unsubscribe_url}`] : []),
  ].join('\n\n') + '\n';
  const paragraphs = content.paragraphs.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`).join('\n');
  const action = content.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="background:#2454d6;color:#fff;padding:10px 18px;border-radius:4px;text-decoration:none">${escapeHtml(content.action.label)}</a></p>
<p style="margin:0 0 16px;font-size:12px;color:#555">${escapeHtml(content.action.url)}</p>`
    : '';
  const footer = [
    content.footer ? `<p style="margin:24px 0 0;font-size:12px;color:#777">${escapeHtml(content.footer)}</p>` : '',
    content.unsubscribe_url ? `<p style="margin:8px 0 0;font-size:12px;color:#777"><a href="${escapeHtml(content.unsubscribe_url)}" style="color:#777">Unsubscribe</a> from these e-mails</p>` : '',
  ].filter(Boolean).join('\n');
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#111;max-width:560px;margin:0 auto;padding:24px">
${paragraphs}
${action}
${footer}
</body></html>
`;
  return { subject, text, html };
}
