import type { PublicIncident, PublicStatusPage, PublicUptimeDay } from '@vantage/shared-protocol';
import { html, raw } from 'hono/html';
import { postmortemHtml } from '../incidents/postmortem-html.js';

/*
 * The public status page as server-rendered HTML (docs/api/status-pages.md "The public page"):
 * no script at all, so it reads the same with JavaScript off; every value escaped by Hono's html
 * helper; postmortem Markdown rendered safe by postmortem-html.ts. Bars carry `data-level` and
 * `data-date` and a title for a pointer, and a text summary for screen readers.
 */

const LABEL: Record<PublicUptimeDay['level'], string> = {
  up: 'Operational', degraded: 'Degraded performance', down: 'Outage', maintenance: 'Under maintenance', no_data: 'No data',
};
const PAGE_LABEL: Record<PublicUptimeDay['level'], string> = {
  up: 'All systems operational', degraded: 'Some systems degraded', down: 'Outage in progress', maintenance: 'Maintenance in progress', no_data: 'No data yet',
};
const STATUS_LABEL = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' } as const;

const STYLE = `
:root{--bg:#fff;--fg:#111;--muted:#555;--line:#ddd;--up:#2e9e5b;--degraded:#e0a100;--down:#d93b3b;--maintenance:#3b7dd9;--no_data:#c8c8c8}
@media (prefers-color-scheme:dark){:root.theme-system{--bg:#111;--fg:#eee;--muted:#aaa;--line:#333;--no_data:#444}}
:root.theme-dark{--bg:#111;--fg:#eee;--muted:#aaa;--line:#333;--no_data:#444}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,Segoe UI,Helvetica,Arial,sans-serif}
main{max-width:860px;margin:0 auto;padding:24px}
header img{max-height:48px}
.summary{padding:14px 18px;border-radius:6px;color:#fff;font-weight:600;margin:16px 0}
.summary.lvl-up{background:var(--up)}.summary.lvl-degraded{background:var(--degraded)}.summary.lvl-down{background:var(--down)}
.summary.lvl-maintenance{background:var(--maintenance)}.summary.lvl-no_data{background:#777}
.component{border:1px solid var(--line);border-radius:6px;padding:12px 16px;margin:8px 0}
.component h3{display:flex;justify-content:space-between;margin:0 0 8px;font-size:15px}
.state{font-weight:normal;color:var(--muted)}
.bars{display:flex;gap:2px;height:32px}
.bar{flex:1;border-radius:2px;background:var(--no_data)}
.bar.lvl-up{background:var(--up)}.bar.lvl-degraded{background:var(--degraded)}.bar.lvl-down{background:var(--down)}.bar.lvl-maintenance{background:var(--maintenance)}
.legend{display:flex;justify-content:space-between;color:var(--muted);font-size:12px}
.incident{border-left:4px solid var(--degraded);padding:4px 12px;margin:12px 0}
.incident.impact-major,.incident.impact-critical{border-color:var(--down)}
.incident.maintenance{border-color:var(--maintenance)}
.update{margin:6px 0}.update time,.muted{color:var(--muted);font-size:13px}
.postmortem{border-top:1px solid var(--line);margin-top:8px}
footer{margin-top:32px;color:var(--muted);font-size:13px}
`;

const when = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;

function bar(day: PublicUptimeDay) {
  const detail = day.uptime_percent === null ? LABEL[day.level] : `${LABEL[day.level]}, ${day.uptime_percent}% uptime`;
  return html`<span class="bar lvl-${day.level}" data-date="${day.date}" data-level="${day.level}" title="${day.date}: ${detail}"></span>`;
}

function component(c: PublicStatusPage['components'][number], history_days: number) {
  const uptime = c.uptime_percent === null ? 'no data' : `${c.uptime_percent}% uptime`;
  return html`<section class="component" data-component-id="${c.id}" data-state="${c.state}">
<h3><span>${c.name}</span><span class="state">${LABEL[c.state]}</span></h3>
<div class="bars" role="img" aria-label="${c.name}: ${uptime} over ${history_days} days">${c.days.map(bar)}</div>
<div class="legend"><span>${history_days} days ago</span><span>${uptime}</span><span>Today</span></div>
</section>`;
}

function incident(i: PublicIncident) {
  return html`<article class="incident impact-${i.impact}" data-incident-id="${i.id}" data-status="${i.status}">
<h3>${i.title}</h3>
<p class="muted">${STATUS_LABEL[i.status]} · impact ${i.impact} · started ${when(i.started_at)}${i.resolved_at ? html` · resolved ${when(i.resolved_at)}` : ''}</p>
${i.updates.map((u) => html`<div class="update"><strong>${STATUS_LABEL[u.status]}</strong> — ${u.message} <br>${when(u.created_at)}</div>`)}
${i.postmortem_md === null ? '' : html`<div class="postmortem"><h4>Postmortem</h4>${raw(postmortemHtml(i.postmortem_md))}</div>`}
</article>`;
}

function sections(view: PublicStatusPage) {
  const order: string[] = [];
  for (const c of view.components) if (!order.includes(c.section)) order.push(c.section);
  return order.map((name) => html`${name ? html`<h2>${name}</h2>` : ''}${view.components.filter((c) => c.section === name).map((c) => component(c, view.history_days))}`);
}

/** The whole page: `view` (public-view.ts) as an HTML document, no script. */
export function pageHtml(view: PublicStatusPage): string {
  return String(html`<!doctype html>
<html lang="en" class="theme-${view.theme}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${view.title}</title>
<link rel="alternate" type="application/atom+xml" title="${view.title} incidents" href="/status/${view.slug}/feed.atom">
<style>${raw(STYLE)}</style></head>
<body><main>
<header>${view.logo_url ? html`<img src="${view.logo_url}" alt="">` : ''}<h1>${view.title}</h1>${view.description ? html`<p>${view.description}</p>` : ''}</header>
<div class="summary lvl-${view.status}" data-page-status="${view.status}">${PAGE_LABEL[view.status]}</div>
${view.active_incidents.length ? html`<h2>Active incidents</h2>${view.active_incidents.map(incident)}` : ''}
${view.maintenance.length ? html`<h2>Scheduled maintenance</h2>${view.maintenance.map((m) => html`<article class="incident maintenance" data-maintenance-start="${m.starts_at}"><h3>${m.title ?? 'Maintenance'}</h3><p class="muted">${when(m.starts_at)} – ${when(m.ends_at)}</p></article>`)}` : ''}
${sections(view)}
<h2>Past incidents</h2>
${view.past_incidents.length ? view.past_incidents.map(incident) : html`<p class="muted">No incidents in the last ${view.history_days} days.</p>`}
<footer>Updated ${when(view.generated_at)} · <a href="/status/${view.slug}/feed.atom">Atom feed</a></footer>
</main></body></html>
`);
}

/** The password form of a page that is not public; `failed` after a wrong password. */
export function passwordHtml(p: { title: string; action: string; failed: boolean }): string {
  return String(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${p.title}</title><style>${raw(STYLE)}</style></head>
<body><main><h1>${p.title}</h1><p>This status page is protected by a password.</p>
${p.failed ? html`<p role="alert">That password is not right.</p>` : ''}
<form method="post" action="${p.action}"><label>Password <input type="password" name="password" required autocomplete="current-password"></label> <button type="submit">View the page</button></form>
</main></body></html>
`);
}

/** The HTML a browser gets for `/status/{slug}` when there is no page there (404): it says so and offers nothing else. */
export function notFoundHtml(path: string): string {
  return String(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>No status page here</title><style>${raw(STYLE)}</style></head>
<body><main><h1>No status page here</h1><p class="muted">There is no status page at <code>${path}</code>. Check the address, or ask the service's owner for its status page.</p></main></body></html>
`);
}
