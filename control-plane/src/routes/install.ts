import { createReadStream, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { createRouter } from './router.js';

/**
 * The one-line installer (issue 5 item 7; docs/operators/install.md):
 * - GET /install.sh: installer/install.sh with its `DEFAULT_URL` line set to this instance's
 *   base URL (config `public_url`, else the request's origin), so
 *   `curl -fsSL <base>/install.sh | sh -s -- --token ent_…` needs no `--url`;
 * - GET /install/agent.tar.gz and GET /install/agent.tar.gz.sha256: the agent bundle named by
 *   `<install_bundle_dir>/agent.json` (written by installer/build-bundle.ts). The manifest is read
 *   on each request, so a rebuilt bundle is served without a restart.
 * Missing script or bundle: 503 UNAVAILABLE with the command that builds it.
 */

/** The placeholder line of install.sh that GET /install.sh rewrites. */
export const BASE_URL_PLACEHOLDER = "DEFAULT_URL='__VANTAGE_BASE_URL__'";

/** Characters install.sh accepts in a URL (its validate_url); anything else is not baked in. */
const SAFE_URL = /^https?:\/\/[A-Za-z0-9:/._~%@[\]-]+$/;

interface Manifest {
  version: string;
  file: string;
  sha256: string;
}

/**
 * install.sh text with the base URL baked in. `base_url` must match SAFE_URL (it is placed inside
 * single quotes in a script run as root); otherwise the placeholder stays and the script asks
 * for --url. Only the first placeholder line is replaced.
 */
export function bakeInstallScript(script: string, base_url: string | null): string {
  const url = base_url?.replace(/\/+$/, '') ?? '';
  if (!url || !SAFE_URL.test(url)) return script;
  return script.replace(BASE_URL_PLACEHOLDER, `DEFAULT_URL='${url}'`);
}

/** Base URL of this instance as the caller sees it: public_url, else forwarded or request origin. */
function baseUrl(c: Context<AppEnv>, deps: AppDeps): string | null {
  if (deps.config.public_url) return deps.config.public_url;
  const origin = new URL(c.req.url).origin;
  if (!deps.config.trust_proxy) return origin;
  const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim();
  const host = c.req.header('x-forwarded-host')?.split(',')[0]?.trim();
  if (!host || (proto !== 'http' && proto !== 'https')) return origin;
  return `${proto}://${host}`;
}

function readManifest(dir: string): Manifest {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'agent.json'), 'utf8')) as Manifest;
  } catch {
    throw bundleMissing(dir);
  }
  if (typeof manifest.file !== 'string' || !/^[A-Za-z0-9._+-]+\.tar\.gz$/.test(manifest.file)) throw bundleMissing(dir);
  return manifest;
}

function bundleMissing(dir: string): ApiError {
  return new ApiError('UNAVAILABLE', `the agent bundle has not been built: run \`npx tsx installer/build-bundle.ts ${dir}\``);
}

const textResponse = (description: string, type: string) => ({
  200: { description, content: { [type]: { schema: z.string() } } },
  503: { description: 'The installer or the agent bundle is not available on this instance (UNAVAILABLE).' },
});

/** Router for the installer files; mounted at the root (`app.route('/', installRouter(deps))`). */
export function installRouter(deps: AppDeps) {
  const r = createRouter();
  const bundleDir = deps.config.install_bundle_dir;
  let script: string | null = null;
  try {
    script = readFileSync(deps.config.install_script_path, 'utf8');
  } catch (err) {
    deps.log.warn({ err, path: deps.config.install_script_path }, 'installer script not found: GET /install.sh answers 503');
  }

  r.openapi(
    createRoute({ method: 'get', path: '/install.sh', tags: ['install'], summary: 'The node installer script', responses: textResponse('POSIX sh installer', 'text/x-shellscript') }),
    (c) => {
      if (script === null) throw new ApiError('UNAVAILABLE', 'the installer script is not available on this instance');
      c.header('Cache-Control', 'no-store');
      return c.body(bakeInstallScript(script, baseUrl(c, deps)), 200, { 'Content-Type': 'text/x-shellscript; charset=utf-8' });
    },
  );

  r.openapi(
    createRoute({ method: 'get', path: '/install/agent.tar.gz', tags: ['install'], summary: 'The node agent bundle', responses: textResponse('gzip tarball of the agent', 'application/gzip') }),
    (c) => {
      const manifest = readManifest(bundleDir);
      const path = join(bundleDir, manifest.file);
      let size: number;
      try {
        size = statSync(path).size;
      } catch {
        throw bundleMissing(bundleDir);
      }
      const body = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
      return c.body(body, 200, {
        'Content-Type': 'application/gzip',
        'Content-Length': String(size),
        'Content-Disposition': `attachment; filename="${manifest.file}"`,
        'Cache-Control': 'no-cache',
        ETag: `"${manifest.sha256}"`,
        'X-Vantage-Agent-Version': manifest.version,
      });
    },
  );

  r.openapi(
    createRoute({ method: 'get', path: '/install/agent.tar.gz.sha256', tags: ['install'], summary: 'sha256 of the agent bundle', responses: textResponse('`<hex>  <file>` (sha256sum format)', 'text/plain') }),
    (c) => {
      const manifest = readManifest(bundleDir);
      if (!/^[0-9a-f]{64}$/.test(manifest.sha256)) throw bundleMissing(bundleDir);
      c.header('Cache-Control', 'no-cache');
      c.header('X-Vantage-Agent-Version', manifest.version);
      return c.text(`${manifest.sha256}  ${manifest.file}\n`);
    },
  );
  return r;
}
