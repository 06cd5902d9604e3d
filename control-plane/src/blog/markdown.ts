import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';
import type sanitizeHtml from 'sanitize-html';

/*
 * A post's Markdown as HTML safe to put in the console and the feed: markdown-it (CommonMark, raw
 * HTML off so it shows as text, its link check dropping javascript:, vbscript:, file: and data:
 * URLs), then sanitize-html as a second, independent gate: only the elements Markdown makes, only
 * http(s)/mailto links and http(s) images, no event handlers, styles or classes, every link without
 * a referrer. A bug in either library alone does not open a script hole.
 */

let libs: { md: InstanceType<typeof MarkdownIt>; sanitize: typeof sanitizeHtml; allowed: sanitizeHtml.IOptions } | null = null;

/**
 * The renderer and the sanitiser with their options, made at the first post rendered: the two
 * libraries are ~90 modules that loading the app never needs (docs/contributing.md "Test").
 */
function blogLibs(): NonNullable<typeof libs> {
  if (libs) return libs;
  const require = createRequire(import.meta.url);
  const MarkdownItClass = require('markdown-it') as typeof MarkdownIt;
  const sanitize = require('sanitize-html') as typeof sanitizeHtml;
  libs = { md: new MarkdownItClass({ html: false, linkify: true, typographer: false }), sanitize, allowed: allowedHtml(sanitize) };
  return libs;
}

/** What sanitize-html lets through (see above). */
const allowedHtml = (sanitize: typeof sanitizeHtml): sanitizeHtml.IOptions => ({
  allowedTags: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'em', 'strong', 's', 'del',
    'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  allowedAttributes: { a: ['href', 'title', 'rel'], img: ['src', 'alt', 'title'], ol: ['start'], th: ['style'], td: ['style'] },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  transformTags: { a: sanitize.simpleTransform('a', { rel: 'nofollow noopener noreferrer' }) },
});

/** `content_md` (CommonMark) as sanitised HTML (see above). */
export function renderPostHtml(content_md: string): string {
  const { md, sanitize, allowed } = blogLibs();
  return sanitize(md.render(content_md), allowed);
}
