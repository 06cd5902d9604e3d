import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './bundle-sources.js';
import { loadEsbuild } from './esbuild.js';

/**
 * `pnpm build`: the JavaScript production runs from (docs/operators/deployment.md "Running from a
 * build"). Each entry point becomes one ESM file (esbuild: platform node, target node20, with a
 * linked source map) that the launchers in control-plane/bin and node-agent/bin run when
 * `NODE_ENV=production`, so production needs neither tsx nor a TypeScript loader:
 *
 *   control-plane/src/main.ts        -> control-plane/dist/main.mjs
 *   node-agent/src/cli/main.ts       -> node-agent/dist/node-agent.mjs
 *   node-agent/src/cli/vantage/main.ts -> node-agent/dist/vantage.mjs
 *
 * The workspace packages (@vantage/shared-protocol, and node-agent code the control plane uses)
 * are compiled into each file, so their package exports (TypeScript sources, for development and
 * tests) are never resolved at run time. Third-party packages stay outside the bundle and load
 * from the package's node_modules as they do in development, when they are among the package's
 * own `dependencies` and resolve to the same files from the output folder as from the importing
 * source; any other (a dependency only of another workspace package) is compiled in.
 *
 * Files are read at run time relative to their source (migrations, data lists, the console build,
 * `createRequire(import.meta.url)` for native addons): in each workspace source compiled in,
 * `import.meta.url` is replaced by that source file's own URL, computed from the bundle's
 * location, so every such path resolves exactly as it does under tsx. The bundle therefore runs in
 * place, inside the checkout or image it was built in.
 *
 *   node_modules/.bin/tsx installer/build-runtime.ts [--check]
 *
 * `--check` then runs each one's smoke test through its launcher with NODE_ENV=production.
 */

export interface RuntimeEntry {
  /** Source entry, relative to the repository root. */
  entry: string;
  /** Output file, relative to the repository root. */
  outfile: string;
  /** The launcher that runs it under NODE_ENV=production, relative to the repository root. */
  launcher: string;
  /** Arguments of a smoke test (`--check`) that must exit 0 without network or database. */
  smoke_args: string[];
}

/** Every entry point production starts from. */
export const RUNTIME_ENTRIES: readonly RuntimeEntry[] = [
  { entry: 'control-plane/src/main.ts', outfile: 'control-plane/dist/main.mjs', launcher: 'control-plane/bin/control-plane.mjs', smoke_args: ['--version'] },
  { entry: 'node-agent/src/cli/main.ts', outfile: 'node-agent/dist/node-agent.mjs', launcher: 'node-agent/bin/node-agent.mjs', smoke_args: ['version'] },
  { entry: 'node-agent/src/cli/vantage/main.ts', outfile: 'node-agent/dist/vantage.mjs', launcher: 'node-agent/bin/vantage.mjs', smoke_args: ['schema'] },
];

type OnResolveArgs = { path: string; importer: string; resolveDir: string; kind: string; pluginData?: { probe?: boolean } };
type ResolveResult = { path: string; errors: unknown[] };
interface PluginBuild {
  onResolve(o: { filter: RegExp }, cb: (a: OnResolveArgs) => Promise<{ path: string; external: boolean } | undefined>): void;
  onLoad(o: { filter: RegExp }, cb: (a: { path: string }) => { contents: string; loader: string } | undefined): void;
  resolve(path: string, o: { kind: string; resolveDir: string; pluginData: { probe: boolean } }): Promise<ResolveResult>;
}

const BUILTINS = new Set(builtinModules);

/** The package name of a bare specifier (`@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`). */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** esbuild plugin: which bare imports stay outside the bundle (see the module comment). */
function externals(packageDir: string) {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const own = new Set(Object.keys(pkg.dependencies ?? {}));
  return {
    name: 'vantage-externals',
    setup(build: PluginBuild) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.probe) return undefined;
        if (args.path.startsWith('node:') || BUILTINS.has(args.path)) return { path: args.path, external: true };
        const name = packageName(args.path);
        if (name.startsWith('@vantage/') || !own.has(name)) return undefined;
        const fromSource = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { probe: true } });
        const fromOutput = await build.resolve(args.path, { kind: args.kind, resolveDir: packageDir, pluginData: { probe: true } });
        if (fromSource.errors.length || fromOutput.errors.length) return undefined;
        return realpathSync(fromSource.path) === realpathSync(fromOutput.path) ? { path: args.path, external: true } : undefined;
      });
    },
  };
}

/**
 * esbuild plugin: in the workspace's own sources, `import.meta.url` becomes the URL of the source
 * file itself, computed at run time from the bundle's URL (so the tree may move as a whole).
 */
function sourceLocatedImportMeta(outDir: string) {
  return {
    name: 'vantage-source-located-import-meta',
    setup(build: PluginBuild) {
      build.onLoad({ filter: /\.(ts|mts|mjs|js)$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`) || !args.path.startsWith(REPO_ROOT + sep)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const rel = relative(outDir, args.path).split(sep).join('/');
        const here = `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
        return { contents: source.replaceAll('import.meta.url', here), loader: extname(args.path).endsWith('ts') ? 'ts' : 'js' };
      });
    },
  };
}

/** The folder holding the package.json nearest to `file`. */
function packageDirOf(file: string): string {
  let dir = dirname(file);
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

/**
 * Build every entry of RUNTIME_ENTRIES (or `entries`) under `repo_root`. Old outputs are removed
 * first. @returns the output files (absolute) with their sizes in bytes
 * @throws Error from esbuild (a type-stripping error, an unresolvable import)
 */
export async function buildRuntime(entries: readonly RuntimeEntry[] = RUNTIME_ENTRIES, repo_root = REPO_ROOT): Promise<Array<{ outfile: string; bytes: number }>> {
  const esbuild = await loadEsbuild();
  const built: Array<{ outfile: string; bytes: number }> = [];
  for (const e of entries) {
    const outfile = join(repo_root, e.outfile);
    const packageDir = packageDirOf(outfile);
    rmSync(outfile, { force: true });
    rmSync(`${outfile}.map`, { force: true });
    const result = await esbuild.build({
      entryPoints: [join(repo_root, e.entry)],
      outfile,
      bundle: true,
      absWorkingDir: repo_root,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      sourcemap: 'linked',
      metafile: true,
      plugins: [externals(packageDir), sourceLocatedImportMeta(dirname(outfile))],
      // CommonJS code compiled in still calls require() for builtins and externals.
      banner: { js: "import { createRequire as __vantageCreateRequire } from 'node:module'; const require = __vantageCreateRequire(import.meta.url);" },
      legalComments: 'none',
      logLevel: 'warning',
    });
    const bytes = Object.entries(result.metafile?.outputs ?? {}).find(([path]) => path.endsWith('.mjs'))?.[1].bytes ?? 0;
    built.push({ outfile, bytes });
  }
  return built;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { execFileSync } = await import('node:child_process');
  try {
    for (const out of await buildRuntime()) console.log(`${relative(REPO_ROOT, out.outfile)}  ${(out.bytes / 1024).toFixed(0)} KiB`);
    if (process.argv.includes('--check')) {
      for (const e of RUNTIME_ENTRIES) {
        const out = execFileSync(process.execPath, [join(REPO_ROOT, e.launcher), ...e.smoke_args], { env: { ...process.env, NODE_ENV: 'production' }, encoding: 'utf8' });
        console.log(`  NODE_ENV=production ${e.launcher} ${e.smoke_args.join(' ')}: ${out.trim().split('\n')[0]!.slice(0, 60)}`);
      }
    }
  } catch (err) {
    console.error(`build-runtime: ${(err as Error).message}`);
    process.exit(1);
  }
}
