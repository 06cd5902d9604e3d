import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config/index.js';
import type { AppEnv } from '../env.js';
import { sendPrecompressed } from '../http/precompressed.js';
import { consoleFiles, type ConsoleFile } from './console-files.js';

/**
 * The Content-Security-Policy of every console response: scripts, styles, images and API calls
 * from this origin only, no inline script or eval, no plugins, no framing (CSP Level 3).
 */
export const CONSOLE_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'",
  "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

/** First path segments that belong to the API and server-rendered pages: never answered with the console. */
const RESERVED = new Set(['v1', 'docs', 'status', 'install', 'install.sh', 'metrics', 'healthz', 'readyz', 'mcp', '.well-known']);

/** Cache-Control of the files under /assets/: their names carry a content hash, so they never change. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Vantage: console not built</title></head>
<body><h1>The web console is not built</h1>
<p>This control plane serves the API under <a href="/v1/openapi.json">/v1</a>, but its web console has not been built.</p>
<p>Build it with <code>pnpm --filter @vantage/console build</code> (or point <code>VANTAGE_CONSOLE_DIR</code> at a built console) and reload this page.</p>
</body></html>
`;

function send(c: Context, file: ConsoleFile, cacheControl: string): Response {
  return sendPrecompressed(c, file.body, file.content_type, {
    'Cache-Control': cacheControl,
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
  });
}

/**
 * Serves the built web console (docs/console.md) from `config.console_dir` at / for GET and HEAD:
 * a file of the build by its path (`/assets/…` with an immutable Cache-Control, others no-cache),
 * and for any other page URL that asks for HTML (Accept: text/html) the console's index.html
 * (no-cache), so the console's own router shows the page. Paths under the API and server pages
 * (/v1, /docs, /status, /install, /metrics, /healthz, /readyz, /mcp) always go on to their
 * routes, as does anything that is neither a file nor an HTML page request. Without a build, /
 * answers 503 with a page saying how to build the console; the API is unaffected. Every response
 * carries {@link CONSOLE_CSP}.
 */
export function consoleAssets(config: Pick<Config, 'console_dir'>): MiddlewareHandler<AppEnv> {
  const files = consoleFiles(config.console_dir);
  return async function consoleAssetsMiddleware(c, next) {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    const path = c.req.path;
    if (RESERVED.has(path.split('/')[1] ?? '')) return next();
    const rel = path.slice(1);
    if (rel !== '' && rel !== 'index.html') {
      const file = await files(rel);
      if (file) return send(c, file, rel.startsWith('assets/') ? IMMUTABLE : 'no-cache');
      if (rel.startsWith('assets/') || !/\btext\/html\b/.test(c.req.header('Accept') ?? '')) return next();
    }
    const index = await files('index.html');
    if (index) return send(c, index, 'no-cache');
    if (path !== '/') return next();
    return c.html(NOT_BUILT, 503, { 'Content-Security-Policy': CONSOLE_CSP, 'Cache-Control': 'no-cache' });
  };
}
