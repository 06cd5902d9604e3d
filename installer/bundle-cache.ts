import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundleManifest } from './build-bundle.js';
import { REPO_ROOT, sourceFingerprint } from './bundle-sources.js';

/**
 * The agent bundle a control plane serves without a manual build step (docs/operators/install.md):
 * the first request for it builds it into the bundle folder, later ones find it there.
 *
 * A folder's bundle is used as it is when its manifest names a tarball that exists and either was
 * built from the current sources (same `source_sha256`) or was built by hand (`built_by` is not
 * `control-plane`: a release bundle an operator placed there is never replaced). Otherwise it is
 * (re)built from this repository, e.g. after an update of the sources.
 *
 * The build runs in a child process (build-bundle.ts through tsx): copying the native modules, tar
 * and the bundle's smoke test block for a second or more, which the control plane's event loop
 * (node heartbeats, API requests) must not wait for.
 */

/** `built_by` of the manifests ensureBundle writes. */
export const AUTO_BUILT_BY = 'control-plane';

/** The manifest in `out_dir`, or null when there is none or it is unreadable. */
export function readBundleManifest(out_dir: string): (BundleManifest & { built_by?: string }) | null {
  try {
    return JSON.parse(readFileSync(join(out_dir, 'agent.json'), 'utf8')) as BundleManifest & { built_by?: string };
  } catch {
    return null;
  }
}

/** True when the bundle in `out_dir` can be served as it is (see the module comment). */
export function bundleIsCurrent(out_dir: string, fingerprint: string): boolean {
  const manifest = readBundleManifest(out_dir);
  if (!manifest || typeof manifest.file !== 'string' || !existsSync(join(out_dir, manifest.file))) return false;
  return manifest.built_by !== AUTO_BUILT_BY || manifest.source_sha256 === fingerprint;
}

const BUILD_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'build-bundle.ts');
const BUILD_TIMEOUT_MS = 300_000;

/**
 * Run build-bundle.ts into `dir` in a child process. @throws Error with the script's own message
 * (its last stderr line) when it fails, or after BUILD_TIMEOUT_MS
 */
function buildInChild(dir: string): Promise<void> {
  // The parent's NODE_OPTIONS (a test runner's loaders) stay out; tsx is the repository's.
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const args = ['--import', import.meta.resolve('tsx'), BUILD_SCRIPT, dir, '--built-by', AUTO_BUILT_BY];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
    const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
    child.on('error', (err) => { clearTimeout(timer); fail(err); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return done();
      const last = stderr.trim().split('\n').pop()?.replace(/^build-bundle: /, '');
      fail(new Error(last || `build-bundle.ts exited ${signal ?? code}`));
    });
  });
}

const ready = new Map<string, { run: Promise<{ built: boolean }>; settled: boolean }>();

/**
 * Make sure `out_dir` holds a bundle to serve, building it when needed. The first call per folder
 * checks (and builds); later calls reuse that answer while the folder still has a manifest, so
 * sources edited under a running control plane do not swap the bundle between an installer's
 * checksum and tarball downloads (a restart picks them up, as it does for the control plane's own
 * code). Concurrent calls share one build; builds in other processes are harmless (the tarball is
 * reproducible and files appear by rename). A failed build is not remembered: the next call tries
 * again.
 * @returns `{ built }`: whether the check this call shares built the bundle
 * @throws Error from the build (esbuild, a native package missing, the folder not writable)
 */
export function ensureBundle(out_dir: string): Promise<{ built: boolean }> {
  const dir = resolve(out_dir);
  const known = ready.get(dir);
  if (known && (!known.settled || existsSync(join(dir, 'agent.json')))) return known.run;
  const entry = {
    settled: false,
    run: (async () => {
      if (bundleIsCurrent(dir, sourceFingerprint())) return { built: false };
      await buildInChild(dir);
      return { built: true };
    })(),
  };
  ready.set(dir, entry);
  entry.run.then(
    () => { entry.settled = true; },
    () => { if (ready.get(dir) === entry) ready.delete(dir); },
  );
  return entry.run;
}
