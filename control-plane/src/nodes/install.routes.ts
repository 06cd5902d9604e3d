import { createReadStream, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createRoute, z } from '@hono/zod-openapi';
import { ensureBundle } from '../../../installer/bundle-cache.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { createRouter } from '../http/router.js';

/**
 * The one-line installer (docs/operators/install.md):
 * - GET /install.sh: installer/install.sh with its `DEFAULT_URL` line set to this instance's
 *   configured base URL (`public_url`, VANTAGE_PUBLIC_URL), so
 *   `curl -fsSL <base>/install.sh | VANTAGE_TOKEN=ent_… sh` needs no `--url`. Without it the
 *   script is served with a marker instead and asks for `--url`, naming the missing setting: the
 *   request's Host header is never baked in (anyone can send any Host, and a cache in front would
 *   hand that script to everyone).
 * - GET /install/agent.tar.gz and GET /install/agent.tar.gz.sha256: the agent bundle named by
 *   `<install_bundle_dir>/agent.json`. The first request builds it when the folder has none (or an
 *   automatic build from older sources; installer/bundle-cache.ts) and waits for the build; the
 *   manifest is read on each request, so a bundle rebuilt by hand is served without a restart.
 * Missing script, or a bundle that cannot be built: 503 UNAVAILABLE saying why.
 */

/** The placeholder line of install.sh that GET /install.sh rewrites. */
export const BASE_URL_PLACEHOLDER = "DEFAULT_URL='__VANTAGE_BASE_URL__'";
/** What replaces it when no public URL is configured: install.sh then asks for --url and says why. */
export const NO_PUBLIC_URL = "DEFAULT_URL='__VANTAGE_NO_PUBLIC_URL__'";

/** Characters install.sh accepts in a URL (its validate_url); anything else is not baked in. */
const SAFE_URL = /^https?:\/\/[A-Za-z0-9:/._~%@[\]-]+$/;

interface Manifest {
  version: string;
  file: string;
  sha256: string;
}

/**
 * install.sh text with the configured base URL baked in. `base_url` must match SAFE_URL (it is
 * placed inside single quotes in a script run as root); when it is missing or does not, the
 * NO_PUBLIC_URL marker goes in instead and the script asks for --url. Only the first placeholder
 * line is replaced.
 */
export function bakeInstallScript(script: string, base_url: string | null | undefined): string {
  const url = base_url?.replace(/\/+$/, '') ?? '';
  if (!url || !SAFE_URL.test(url)) return script.replace(BASE_URL_PLACEHOLDER, NO_PUBLIC_URL);
  return script.replace(BASE_URL_PLACEHOLDER, `DEFAULT_URL='${url}'`);
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
  return new ApiError('UNAVAILABLE', `the agent bundle in ${dir} is missing or incomplete: rebuild it with \`node_modules/.bin/tsx installer/build-bundle.ts ${dir}\``);
}

/** Build the bundle when the folder has none (waiting for a build already running). @throws ApiError UNAVAILABLE with the build's reason */
async function bundleReady(dir: string, deps: AppDeps): Promise<void> {
  try {
    const { built } = await ensureBundle(dir);
    if (built) deps.log.info({ dir }, 'agent bundle built for the installer');
  } catch (err) {
    deps.log.error({ err, dir }, 'agent bundle build failed');
    const reason = (err as Error).message.split('\n')[0]!.slice(0, 300);
    throw new ApiError('UNAVAILABLE', `the agent bundle could not be built on this control plane (${reason}); build it by hand with \`node_modules/.bin/tsx installer/build-bundle.ts ${dir}\``);
  }
}

const textResponse = (description: string, type: string) => ({
  200: { description, content: { [type]: { schema: z.string() } } },
  503: { description: 'The installer script is missing, or the agent bundle could not be built on this instance (UNAVAILABLE; the message says why).' },
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
  if (script !== null && !deps.config.public_url) {
    deps.log.warn('VANTAGE_PUBLIC_URL is not set: the script served at GET /install.sh asks for --url');
  }

  r.openapi(
    createRoute({ method: 'get', path: '/install.sh', tags: ['install'], summary: 'The node installer script', responses: textResponse('POSIX sh installer', 'text/x-shellscript') }),
    (c) => {
      if (script === null) throw new ApiError('UNAVAILABLE', 'the installer script is not available on this instance');
      c.header('Cache-Control', 'no-store');
      return c.body(bakeInstallScript(script, deps.config.public_url), 200, { 'Content-Type': 'text/x-shellscript; charset=utf-8' });
    },
  );

  r.openapi(
    createRoute({ method: 'get', path: '/install/agent.tar.gz', tags: ['install'], summary: 'The node agent bundle', responses: textResponse('gzip tarball of the agent', 'application/gzip') }),
    async (c) => {
      await bundleReady(bundleDir, deps);
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
    async (c) => {
      await bundleReady(bundleDir, deps);
      const manifest = readManifest(bundleDir);
      if (!/^[0-9a-f]{64}$/.test(manifest.sha256)) throw bundleMissing(bundleDir);
      c.header('Cache-Control', 'no-cache');
      c.header('X-Vantage-Agent-Version', manifest.version);
      return c.text(`${manifest.sha256}  ${manifest.file}\n`);
    },
  );
  return r;
}
