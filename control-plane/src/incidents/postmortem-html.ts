import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';

/*
 * Postmortems are Markdown written by the page's owner and read by anyone: rendered with raw HTML
 * off (it shows as text), markdown-it's link check (no javascript:, vbscript:, file: or data:
 * URLs but images), and every link opened without a referrer. The result is safe to put in a page.
 */
let renderer: InstanceType<typeof MarkdownIt> | null = null;

/** The renderer, made at the first postmortem rendered (markdown-it is not loaded with the app). */
function markdown(): InstanceType<typeof MarkdownIt> {
  if (renderer) return renderer;
  const MarkdownItClass = createRequire(import.meta.url)('markdown-it') as typeof MarkdownIt;
  const md = new MarkdownItClass({ html: false, linkify: true, typographer: false });
  const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    tokens[idx]!.attrSet('rel', 'nofollow noopener noreferrer');
    return defaultLinkOpen(tokens, idx, options, env, self);
  };
  renderer = md;
  return md;
}

/** A postmortem's Markdown as HTML safe to embed (raw HTML escaped, unsafe link schemes dropped; CommonMark via markdown-it). */
export function postmortemHtml(body_md: string): string {
  return markdown().render(body_md);
}
