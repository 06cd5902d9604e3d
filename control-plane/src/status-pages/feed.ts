import type { PublicIncident, PublicStatusPage } from '@vantage/shared-protocol';
import { html } from 'hono/html';

/*
 * The page's incidents as an Atom feed (RFC 4287): one entry per incident shown on the page (open
 * and resolved within the history span), its id a tag URI of the incident (RFC 4151), `updated`
 * its latest update, the updates as the content in text. Escaped by Hono's html helper (XML needs
 * the same five entities).
 */

const latest = (i: PublicIncident) => i.updates[0]?.created_at ?? i.resolved_at ?? i.started_at;

function entry(i: PublicIncident, page_url: string) {
  const text = i.updates.map((u) => `${u.created_at} ${u.status}: ${u.message}`).join('\n') || i.status;
  return html`<entry>
<id>tag:vantage,${i.started_at.slice(0, 10)}:incident/${i.id}</id>
<title>${i.title} (${i.status})</title>
<updated>${latest(i)}</updated>
<published>${i.started_at}</published>
<link rel="alternate" type="text/html" href="${page_url}#${i.id}"/>
<content type="text">${text}</content>
</entry>`;
}

/** The Atom document of `view` published at `page_url` (absolute). */
export function atomFeed(view: PublicStatusPage, page_url: string): string {
  const incidents = [...view.active_incidents, ...view.past_incidents];
  const updated = incidents.map(latest).sort().at(-1) ?? view.generated_at;
  return String(html`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<id>${page_url}</id>
<title>${view.title}: incidents</title>
<updated>${updated}</updated>
<link rel="self" type="application/atom+xml" href="${page_url}/feed.atom"/>
<link rel="alternate" type="text/html" href="${page_url}"/>
<author><name>${view.title}</name></author>
${incidents.map((i) => entry(i, page_url))}
</feed>
`);
}
