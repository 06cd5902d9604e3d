import { html } from 'hono/html';
import type { BlogPostRow } from './blog.db.js';
import { renderPostHtml } from './markdown.js';

/*
 * Published posts as an Atom 1.0 feed (RFC 4287): the feed's id, title, updated and self link;
 * per entry an id (a tag URI of the post, RFC 4151), title, updated, published, author, a
 * category per tag, the summary, an alternate link and the sanitised HTML as `content
 * type="html"`. Text is escaped by Hono's html helper (XML needs the same five entities).
 */

/** Characters XML 1.0 does not allow anywhere (C0 controls but tab, CR, LF; U+FFFE/FFFF), dropped from text. */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const text = (s: string) => s.replace(NOT_XML, '');

function entry(p: BlogPostRow, post_url: (slug: string) => string) {
  return html`<entry>
<id>tag:vantage,${p.published_at!.toISOString().slice(0, 10)}:blog/${p.slug}</id>
<title>${text(p.title)}</title>
<updated>${p.updated_at.toISOString()}</updated>
<published>${p.published_at!.toISOString()}</published>
<author><name>${text(p.author)}</name></author>
${p.tags.map((tag) => html`<category term="${text(tag)}"/>`)}
<link rel="alternate" type="application/json" href="${post_url(p.slug)}"/>
<summary type="text">${text(p.summary)}</summary>
<content type="html">${text(renderPostHtml(p.content_md))}</content>
</entry>
`;
}

/**
 * The Atom document of `posts` (published, newest first) at `self_url` (absolute), titled
 * `title`; `post_url` makes each post's absolute address. `now` is `updated` when there is no post.
 */
export function blogAtomFeed(posts: BlogPostRow[], o: { self_url: string; title: string; post_url: (slug: string) => string; language: string | null; now: Date }): string {
  const updated = posts.map((p) => p.updated_at.toISOString()).sort().at(-1) ?? o.now.toISOString();
  return String(html`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"${o.language ? html` xml:lang="${o.language}"` : ''}>
<id>${o.self_url}</id>
<title>${o.title}</title>
<updated>${updated}</updated>
<link rel="self" type="application/atom+xml" href="${o.self_url}"/>
<generator>Vantage</generator>
${posts.map((p) => entry(p, o.post_url))}</feed>
`);
}
