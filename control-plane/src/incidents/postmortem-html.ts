import MarkdownIt from 'markdown-it';

/*
 * Postmortems are Markdown written by the page's owner and read by anyone: rendered with raw HTML
 * off (it shows as text), markdown-it's link check (no javascript:, vbscript:, file: or data:
 * URLs but images), and every link opened without a referrer. The result is safe to put in a page.
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false });
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'nofollow noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** A postmortem's Markdown as HTML safe to embed (raw HTML escaped, unsafe link schemes dropped; CommonMark via markdown-it). */
export function postmortemHtml(body_md: string): string {
  return md.render(body_md);
}
