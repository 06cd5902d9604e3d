import { cpSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * Copying the agent's native addons (and what they need at run and rebuild time) out of the
 * pnpm workspace into a flat `node_modules/` for the agent bundle.
 *
 * pnpm keeps each package under `node_modules/.pnpm/<name>@<version>/node_modules/<name>` with
 * its own dependencies as siblings; we resolve real paths and flatten them. Sources and
 * `binding.gyp` are kept so the installer can `npm rebuild` when the target's Node ABI differs;
 * of `build/` only the compiled `.node` files are kept (objects and archives are 17 MB).
 */

/** Native addons the agent loads at run time: kept out of the esbuild bundle. */
export const NATIVE_PACKAGES = ['better-sqlite3', 'raw-socket', 'ioctl'] as const;

/**
 * Pure-JS packages kept out of the esbuild bundle and shipped whole beside it: re2js and
 * jsonpath-rfc9535 are loaded by file path in the check runner's pattern worker (require.resolve),
 * and playwright-core (browser checks) finds its own files relative to its package folder
 * (`__dirname`), which an ESM bundle does not have.
 */
export const WORKER_PACKAGES = ['re2js', 'jsonpath-rfc9535', 'playwright-core'] as const;

/**
 * Dependencies used only when a package installs from the registry (prebuilt binary download);
 * the bundle never downloads, so they are left out. Without them better-sqlite3's install
 * script (`prebuild-install || node-gyp rebuild --release`) falls through to node-gyp.
 */
const INSTALL_ONLY = new Set(['prebuild-install']);

/** Folders of a package that are never needed on a node. */
const SKIP_DIRS = new Set(['node_modules', '.github', 'test', 'tests', 'docs', 'benchmark', 'example', 'examples']);

export interface CopiedPackage {
  name: string;
  version: string;
  /** Real path the package was copied from. */
  from: string;
}

/**
 * The real folder of package `name` as seen from `fromDir` (Node's lookup: `node_modules/<name>`
 * in `fromDir` and each parent). Throws when it cannot be found.
 */
export function findPackageDir(name: string, fromDir: string): string {
  let dir = fromDir;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package ${name} not found from ${fromDir}`);
    dir = parent;
  }
}

function readPackageJson(dir: string): { name: string; version: string; dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}

/** True for files of `build/` worth shipping: compiled addons, not objects or archives. */
function keepBuildFile(rel: string): boolean {
  return rel.startsWith(`build${sep}Release`) ? (rel === `build${sep}Release` || rel.endsWith('.node')) && !rel.includes(`${sep}obj`) : rel === 'build';
}

/**
 * Copy `names` and their run/rebuild-time dependencies (transitively, install-only ones left
 * out) from the workspace into `<destNodeModules>/<name>`, flattened. Starts the lookup at
 * `fromDir` (the agent package folder). Returns every copied package with its version.
 * Throws when a package is missing or two different versions of one package are needed.
 */
export function copyNativePackages(names: readonly string[], fromDir: string, destNodeModules: string): CopiedPackage[] {
  const copied = new Map<string, CopiedPackage>();
  const queue: Array<{ name: string; from: string }> = names.map((name) => ({ name, from: fromDir }));
  while (queue.length > 0) {
    const { name, from } = queue.shift()!;
    const dir = findPackageDir(name, from);
    const pkg = readPackageJson(dir);
    const seen = copied.get(name);
    if (seen) {
      if (seen.version !== pkg.version) throw new Error(`${name}: needs both ${seen.version} and ${pkg.version}`);
      continue;
    }
    copied.set(name, { name, version: pkg.version, from: dir });
    const native = existsSync(join(dir, 'binding.gyp'));
    cpSync(dir, join(destNodeModules, name), {
      recursive: true,
      dereference: true,
      filter: (src) => {
        const rel = relative(dir, src);
        if (rel === '') return true;
        const top = rel.split(sep)[0]!;
        if (SKIP_DIRS.has(top)) return false;
        // Only a native addon's build/ holds compile leftovers; a JS package's build/ is its code.
        if (top === 'build' && native) return keepBuildFile(rel);
        return true;
      },
    });
    for (const dep of Object.keys(pkg.dependencies ?? {})) {
      if (!INSTALL_ONLY.has(dep)) queue.push({ name: dep, from: dir });
    }
  }
  return [...copied.values()];
}
