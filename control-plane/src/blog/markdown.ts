import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/*
 * A post's Markdown as HTML safe to put in the console and the feed: markdown-it (CommonMark, raw
 * HTML off so it shows as text, its link check dropping javascript:, vbscript:, file: and data:
 * URLs), then sanitize-html as a second, independent gate: only the elements Markdown makes, only
 * http(s)/mailto links and http(s) images, no event handlers, styles or classes, every link without
 * a referrer. A bug in either library alone does not open a script hole.
 */

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'em', 'strong', 's', 'del',
    'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  allowedAttributes: { a: ['href', 'title', 'rel'], img: ['src', 'alt', 'title'], ol: ['start'], th: ['style'], td: ['style'] },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener noreferrer' }) },
};

/** `content_md` (CommonMark) as sanitised HTML (see above). */
export function renderPostHtml(content_md: string): string {
  return sanitizeHtml(md.render(content_md), ALLOWED);
}
