import { escapeHtml } from '../email/layout.js';

/*
 * The small server-rendered pages a recipient's browser gets from the links of the opt-in and
 * alert e-mails. A GET never changes anything (mail security scanners open links): the page shows
 * a button that POSTs the same URL, and only that POST confirms or unsubscribes.
 */

/** Response headers of every recipient page: never cached, never leaking the token in a Referer, no scripts, no framing. */
export const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Robots-Tag': 'noindex',
} as const;

/**
 * A page of plain-text `lines` under `title` and, with `button`, a form that POSTs the page's own
 * URL (the token stays in the query string). Every text is escaped.
 */
export function recipientPage(p: { title: string; lines: string[]; button?: string }): string {
  const lines = p.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n');
  const form = p.button ? `<form method="post"><button type="submit" style="background:#2454d6;color:#fff;border:0;padding:10px 18px;border-radius:4px;font-size:15px;cursor:pointer">${escapeHtml(p.button)}</button></form>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(p.title)}</title></head>
<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#111;max-width:560px;margin:40px auto;padding:0 24px">
<h1 style="font-size:20px">${escapeHtml(p.title)}</h1>
${lines}
${form}
</body></html>
`;
}
