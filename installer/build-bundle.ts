import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { copyNativePackages, NATIVE_PACKAGES } from './native-deps.js';

/**
 * The agent bundle served by the control plane at GET /install/agent.tar.gz (issue 5 item 7).
 *
 *   npx tsx installer/build-bundle.ts [out_dir] [--version X]
 *
 * Writes to out_dir (default installer/dist/):
 * - `vantage-agent-<version>.tar.gz`: one folder `vantage-agent-<version>/` holding
 *   `node-agent.mjs` (esbuild: ESM, platform node, target node20, native addons external),
 *   `package.json` (native deps pinned; `vantage.node_abi` = `process.versions.modules` at build
 *   time, so the installer knows when to `npm rebuild`) and `node_modules/` with the addons built
 *   here plus their sources and binding.gyp;
 * - `vantage-agent-<version>.tar.gz.sha256` in `sha256sum` format;
 * - `agent.json`: the manifest the control plane serves from `{ version, file, sha256, node_abi,
 *   node_version, built_at }` (the newest build wins).
 */

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const agentDir = join(repoRoot, 'node-agent');
/** The agent's CLI entry (helper E's `node-agent enroll|run|status|version`). */
export const AGENT_ENTRY = join(agentDir, 'src', 'cli', 'main.ts');
export const DEFAULT_OUT_DIR = join(here, 'dist');

/** What a build produced; `tarball` and `sha256_file` are absolute paths. */
export interface BundleManifest {
  version: string;
  /** File name of the tarball inside the output folder. */
  file: string;
  /** Hex sha256 of the tarball. */
  sha256: string;
  /** `process.versions.modules` of the Node.js that compiled the native addons. */
  node_abi: string;
  node_version: string;
  built_at: string;
}

export interface BuildResult extends BundleManifest {
  out_dir: string;
  tarball: string;
  sha256_file: string;
}

/** Optional modules that ws and others `require` inside try/catch: left to fail at run time. */
const OPTIONAL_EXTERNALS = ['bufferutil', 'utf-8-validate'];

/** The part of esbuild's API used here (esbuild's own types are not visible from installer/). */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<unknown>;
}

/** esbuild lives in the test package (not hoisted to the root): load it from there. */
async function loadEsbuild(): Promise<Esbuild> {
  const req = createRequire(join(repoRoot, 'test', 'package.json'));
  return (await import(pathToFileURL(req.resolve('esbuild')).href)) as Esbuild;
}

/**
 * esbuild plugin: the agent reads its version from its package.json relative to its own file
 * (`new URL('../../package.json', import.meta.url)` in cli/commands.ts). In the bundle that file
 * sits next to node-agent.mjs and carries the bundle's version, so such reads are pointed at
 * `./package.json`. The build's smoke test (`node-agent.mjs version`) catches a change there.
 */
const packageJsonNextToBundle = {
  name: 'vantage-package-json-next-to-bundle',
  setup(build: { onLoad(opts: { filter: RegExp }, cb: (args: { path: string }) => { contents: string; loader: 'ts' } | undefined): void }) {
    build.onLoad({ filter: /node-agent[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const pattern = /new URL\((['"])(?:\.\.\/)+package\.json\1, import\.meta\.url\)/g;
      if (!pattern.test(source)) return undefined;
      return { contents: source.replace(pattern, "new URL('./package.json', import.meta.url)"), loader: 'ts' };
    });
  },
};

/** Hex sha256 of a file (streamed). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Build the bundle into `out_dir`. `version` defaults to node-agent/package.json's version and
 * must match /^[0-9A-Za-z][0-9A-Za-z.+_-]*$/ (it names a folder on the node). `entry` overrides
 * the agent entry (default AGENT_ENTRY).
 * Throws when the agent entry is missing, esbuild fails, or a native package cannot be found.
 */
export async function buildBundle(opts: { out_dir?: string; version?: string; entry?: string } = {}): Promise<BuildResult> {
  const entry = opts.entry ?? AGENT_ENTRY;
  const outDir = resolve(opts.out_dir ?? DEFAULT_OUT_DIR);
  const agentPkg = JSON.parse(readFileSync(join(agentDir, 'package.json'), 'utf8')) as { version: string };
  const version = opts.version ?? agentPkg.version;
  if (!/^[0-9A-Za-z][0-9A-Za-z.+_-]*$/.test(version)) throw new Error(`bad version ${JSON.stringify(version)}`);
  if (!existsSync(entry)) throw new Error(`agent entry ${entry} does not exist (yet)`);

  const name = `vantage-agent-${version}`;
  const staging = mkdtempSync(join(tmpdir(), 'vantage-bundle-'));
  try {
    const root = join(staging, name);
    mkdirSync(root, { recursive: true });
    const esbuild = await loadEsbuild();
    await esbuild.build({
      entryPoints: [entry],
      outfile: join(root, 'node-agent.mjs'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      external: [...NATIVE_PACKAGES, ...OPTIONAL_EXTERNALS],
      // CommonJS dependencies inside an ESM bundle still call require() for externals and builtins.
      banner: { js: "import { createRequire as __vantageCreateRequire } from 'node:module'; const require = __vantageCreateRequire(import.meta.url);" },
      plugins: [packageJsonNextToBundle],
      legalComments: 'none',
      logLevel: 'warning',
    });
    const copied = copyNativePackages(NATIVE_PACKAGES, agentDir, join(root, 'node_modules'));
    const pinned = Object.fromEntries(
      copied.filter((p) => (NATIVE_PACKAGES as readonly string[]).includes(p.name)).map((p) => [p.name, p.version]),
    );
    const built_at = new Date().toISOString();
    const pkg = {
      name: 'vantage-agent',
      version,
      private: true,
      type: 'module',
      description: 'Vantage probe node agent (bundled). Run: node node-agent.mjs run --config /etc/vantage/agent.json',
      bin: { 'node-agent': './node-agent.mjs' },
      engines: { node: '>=20.18' },
      dependencies: pinned,
      vantage: {
        node_abi: process.versions.modules,
        node_version: process.versions.node,
        platform: process.platform,
        arch: process.arch,
        built_at,
        bundled_packages: Object.fromEntries(copied.map((p) => [p.name, p.version])),
      },
    };
    writeFileSync(join(root, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    smokeTest(root, version);

    mkdirSync(outDir, { recursive: true });
    const file = `${name}.tar.gz`;
    const tarball = join(outDir, file);
    execFileSync('tar', ['--owner=0', '--group=0', '--numeric-owner', '-czf', tarball, '-C', staging, name]);
    const sha256 = await sha256File(tarball);
    const sha256_file = `${tarball}.sha256`;
    writeFileSync(sha256_file, `${sha256}  ${file}\n`);
    const manifest: BundleManifest = { version, file, sha256, node_abi: process.versions.modules, node_version: process.versions.node, built_at };
    writeFileSync(join(outDir, 'agent.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    return { ...manifest, out_dir: outDir, tarball, sha256_file };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Run the unpacked bundle's `version` command: it must start and print `version`. Throws if not. */
function smokeTest(root: string, version: string): void {
  let out: string;
  try {
    out = execFileSync(process.execPath, [join(root, 'node-agent.mjs'), 'version'], { cwd: tmpdir(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw new Error(`the bundled agent does not start: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
  }
  if (!out.includes(version)) throw new Error(`the bundled agent reports ${JSON.stringify(out.trim())}, expected version ${version}`);
}

function parseArgs(argv: string[]): { out_dir?: string; version?: string } {
  const out: { out_dir?: string; version?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--version') out.version = argv[++i];
    else if (arg.startsWith('--version=')) out.version = arg.slice('--version='.length);
    else if (arg === '--help' || arg === '-h') {
      console.log('usage: npx tsx installer/build-bundle.ts [out_dir] [--version X]');
      process.exit(0);
    } else if (!arg.startsWith('-') && out.out_dir === undefined) out.out_dir = arg;
    else throw new Error(`unknown argument ${arg}`);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const result = await buildBundle(parseArgs(process.argv.slice(2)));
    console.log(`${result.tarball}\n  version ${result.version}, sha256 ${result.sha256}, node ABI ${result.node_abi}`);
  } catch (err) {
    console.error(`build-bundle: ${(err as Error).message}`);
    process.exit(1);
  }
}
