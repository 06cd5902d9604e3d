import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRoute, z } from '@hono/zod-openapi';
import type { ErrorCode } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { Config } from '../config/index.js';
import { publicBaseUrl } from '../config/public-url.js';
import { ApiError } from '../errors.js';
import { jsonError } from './openapi-responses.js';
import { createRouter } from './router.js';

/** Where the API guides are served, under the instance's public base URL. */
export const API_DOCS_PATH = '/docs/api';

/** The repository's docs/api folder, read once when the router is built. */
const DOCS_DIR = fileURLToPath(new URL('../../../docs/api/', import.meta.url));

/**
 * The anchor GitHub (and our HTML view) gives a markdown heading: lower case, punctuation other
 * than `-` and `_` dropped, spaces to `-` (`### AUTH_REQUIRED` → `auth_required`).
 */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/**
 * The absolute URL of an API guide served by this instance, optionally at an anchor:
 * `<public base URL>/docs/api/<page>#<anchor>` (base: config/public-url.ts publicBaseUrl, so it
 * resolves on every deployment; config is read at call time, as tests bind their port late).
 * @example apiDocUrl(config, 'versioning.md') → 'https://vantage.example/docs/api/versioning.md'
 */
export function apiDocUrl(config: Pick<Config, 'public_url' | 'host' | 'port'>, page: string, anchor?: string): string {
  return `${publicBaseUrl(config)}${API_DOCS_PATH}/${page}${anchor ? `#${anchor}` : ''}`;
}

/** `doc_url` of an error envelope: the code's entry in docs/api/errors.md (`…/errors.md#auth_required`). */
export function errorDocUrl(config: Pick<Config, 'public_url' | 'host' | 'port'>, code: ErrorCode): string {
  return apiDocUrl(config, 'errors.md', headingAnchor(code));
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * A plain HTML view of a markdown page for browsers: headings become `<hN id="anchor">` (so a
 * `#anchor` in a doc_url scrolls to its entry), everything between them stays preformatted text.
 */
export function markdownAsHtml(title: string, markdown: string): string {
  const out: string[] = [];
  let block: string[] = [];
  let fenced = false;
  const flush = () => {
    if (block.some((l) => l.trim())) out.push(`<pre>${escapeHtml(block.join('\n').replace(/^\n+|\n+$/g, ''))}</pre>`);
    block = [];
  };
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^(#{1,6})\s+(.*)$/.exec(line);
    if (!heading) { block.push(line); continue; }
    flush();
    const level = heading[1]!.length;
    out.push(`<h${level} id="${escapeHtml(headingAnchor(heading[2]!))}">${escapeHtml(heading[2]!)}</h${level}>`);
  }
  flush();
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>`
    + '<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}pre{white-space:pre-wrap}</style></head>'
    + `<body>\n${out.join('\n')}\n</body></html>\n`;
}

const page = z.string().regex(/^[a-z0-9-]+\.md$/).openapi({ param: { name: 'page', in: 'path' }, example: 'errors.md' });

const getDoc = createRoute({
  method: 'get', path: '/{page}', tags: ['meta'],
  summary: 'An API guide of this build (errors.md, versioning.md, conventions.md …): markdown, or HTML for browsers',
  description: 'The pages of docs/api as this control plane was built with them: `text/markdown` (RFC 7763), or a plain HTML view (headings carry the same anchors) when the Accept header asks for text/html. `doc_url` in error envelopes and the deprecation Link point here.',
  request: { params: z.object({ page }) },
  responses: {
    200: { description: 'the page', content: { 'text/markdown': { schema: z.string() }, 'text/html': { schema: z.string() } } },
    404: jsonError('NOT_FOUND: no API guide of that name'),
  },
});

/**
 * Router serving the API guides (docs/api/*.md) at GET /docs/api/{page}, mounted at
 * {@link API_DOCS_PATH}: the target of every error envelope's `doc_url` (docs/api/errors.md) and of
 * the deprecation `Link` (docs/api/versioning.md), so both resolve on every deployment. The pages
 * are read once when the router is built; a page that is not there is 404 NOT_FOUND.
 */
export function apiDocsRouter(deps: Pick<AppDeps, 'log'>) {
  const r = createRouter();
  const pages = new Map<string, string>();
  try {
    for (const name of readdirSync(DOCS_DIR).filter((f) => /^[a-z0-9-]+\.md$/.test(f))) pages.set(name, readFileSync(`${DOCS_DIR}${name}`, 'utf8'));
  } catch (err) {
    deps.log.warn({ err, dir: DOCS_DIR }, 'API guides not found: GET /docs/api/{page} answers 404 and doc_url links lead nowhere');
  }
  r.openapi(getDoc, (c) => {
    const name = c.req.valid('param').page;
    const text = pages.get(name);
    if (text === undefined) throw new ApiError('NOT_FOUND', `no API guide named ${name}`);
    c.header('Cache-Control', 'public, max-age=300');
    c.header('Vary', 'Accept');
    if (/\btext\/html\b/i.test(c.req.header('accept') ?? '')) {
      // Text and one inline style only: nothing in the page may run.
      c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
      return c.body(markdownAsHtml(name, text), 200, { 'Content-Type': 'text/html; charset=utf-8' });
    }
    return c.body(text, 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  });
  return r;
}
