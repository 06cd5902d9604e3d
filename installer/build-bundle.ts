import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { REPO_ROOT, sourceFingerprint, writeFileAtomic } from './bundle-sources.js';
import { copyNativePackages, NATIVE_PACKAGES, WORKER_PACKAGES } from './native-deps.js';
import { loadEsbuild } from './esbuild.js';

/**
 * The agent bundle served by the control plane at GET /install/agent.tar.gz
 * (docs/operators/install.md). The control plane builds it on the first request when its bundle
 * folder has none (bundle-cache.ts); this script builds one by hand, e.g. for a release.
 *
 *   node_modules/.bin/tsx installer/build-bundle.ts [out_dir] [--version X]
 *
 * Writes to out_dir (default installer/dist/):
 * - `vantage-agent-<version>.tar.gz`: one folder `vantage-agent-<version>/` holding
 *   `node-agent.mjs` (esbuild: ESM, platform node, target node20, native addons external, ASCII only),
 *   `package.json` (native deps pinned; `vantage.node_abi` = `process.versions.modules` at build
 *   time, so the installer knows when to `npm rebuild`) and `node_modules/` with the addons built
 *   here plus their sources and binding.gyp;
 * - `vantage-agent-<version>.tar.gz.sha256` in `sha256sum` format;
 * - `agent.json`: the manifest the control plane serves from `{ version, file, sha256, node_abi,
 *   node_version, source_sha256, built_at }` (the newest build wins).
 *
 * The tarball is reproducible: the same sources (bundle-sources.ts fingerprint) give the same
 * bytes (sorted entries, fixed owner, mtime and modes, gzip without a timestamp), so builds racing
 * into one folder agree on the checksum. Modes are u+rwX,go+rX whatever the builder's umask: the
 * agent runs as an unprivileged user and must be able to read every file. Files appear in the
 * folder by rename, manifest last, so a reader never sees a half-written bundle.
 */

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = REPO_ROOT;
const agentDir = join(repoRoot, 'node-agent');
/** The agent's CLI entry (`node-agent enroll|run|status|version`). */
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
  /** bundle-sources.ts fingerprint of what the bundle was built from. */
  source_sha256: string;
  /** Who built it: `build-bundle` (by hand, kept as it is) or `control-plane` (bundle-cache.ts, rebuilt when the sources change). */
  built_by: string;
  built_at: string;
}

export interface BuildResult extends BundleManifest {
  out_dir: string;
  tarball: string;
  sha256_file: string;
}

/** Optional modules that ws and others `require` inside try/catch: left to fail at run time. */
const OPTIONAL_EXTERNALS = ['bufferutil', 'utf-8-validate'];

/** Entry mtime in the tarball: SOURCE_DATE_EPOCH (the reproducible-builds convention), else 2020-01-01. */
function archiveEpoch(): number {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  return Number.isInteger(epoch) && epoch > 0 ? epoch : 1_577_836_800;
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

/**
 * esbuild's output with every non-ASCII character written as a `\uXXXX` escape. esbuild already
 * escapes them in strings, template literals, regular expressions and identifiers (its default
 * `charset: 'ascii'`), but not in the comments it keeps, so what is left is only in comments, where
 * the escape reads the same. It matters for memory: V8 keeps a module's source for its lifetime,
 * as two bytes per character once a single character is not Latin-1, so one `→` in a comment
 * doubles what the 2 MB bundle occupies in the agent's heap.
 */
export function asciiComments(js: string): string {
  return js.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Hex sha256 of a file (streamed). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Build the bundle into `out_dir`. `version` defaults to node-agent/package.json's version and
 * must match /^[0-9A-Za-z][0-9A-Za-z.+_-]*$/ (it names a folder on the node). `entry` overrides
 * the agent entry (default AGENT_ENTRY). `built_by` goes into the manifest (default `build-bundle`).
 * Throws when the agent entry is missing, esbuild fails, or a native package cannot be found.
 */
export async function buildBundle(opts: { out_dir?: string; version?: string; entry?: string; built_by?: string } = {}): Promise<BuildResult> {
  const entry = opts.entry ?? AGENT_ENTRY;
  const outDir = resolve(opts.out_dir ?? DEFAULT_OUT_DIR);
  const agentPkg = JSON.parse(readFileSync(join(agentDir, 'package.json'), 'utf8')) as { version: string };
  const version = opts.version ?? agentPkg.version;
  if (!/^[0-9A-Za-z][0-9A-Za-z.+_-]*$/.test(version)) throw new Error(`bad version ${JSON.stringify(version)}`);
  if (!existsSync(entry)) throw new Error(`agent entry ${entry} does not exist (yet)`);

  const name = `vantage-agent-${version}`;
  const source_sha256 = sourceFingerprint(repoRoot);
  const staging = mkdtempSync(join(tmpdir(), 'vantage-bundle-'));
  try {
    const root = join(staging, name);
    mkdirSync(root, { recursive: true });
    const esbuild = await loadEsbuild();
    const built = await esbuild.build({
      entryPoints: [entry],
      outfile: join(root, 'node-agent.mjs'),
      write: false,
      bundle: true,
      // Paths in the bundle's comments are relative to this folder: the same wherever the repository is.
      absWorkingDir: repoRoot,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      external: [...NATIVE_PACKAGES, ...WORKER_PACKAGES, ...OPTIONAL_EXTERNALS],
      // CommonJS dependencies inside an ESM bundle still call require() for externals and builtins.
      banner: { js: "import { createRequire as __vantageCreateRequire } from 'node:module'; const require = __vantageCreateRequire(import.meta.url);" },
      plugins: [packageJsonNextToBundle],
      legalComments: 'none',
      logLevel: 'warning',
    });
    for (const out of built.outputFiles ?? []) writeFileSync(out.path, asciiComments(out.text));
    const copied = copyNativePackages([...NATIVE_PACKAGES, ...WORKER_PACKAGES], agentDir, join(root, 'node_modules'));
    const pinned = Object.fromEntries(
      copied.filter((p) => (NATIVE_PACKAGES as readonly string[]).includes(p.name)).map((p) => [p.name, p.version]),
    );
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
        source_sha256,
        bundled_packages: Object.fromEntries(copied.map((p) => [p.name, p.version])),
      },
    };
    writeFileSync(join(root, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    smokeTest(root, version);

    mkdirSync(outDir, { recursive: true });
    const file = `${name}.tar.gz`;
    const tarball = join(outDir, file);
    const plainTar = join(staging, `${name}.tar`);
    execFileSync('tar', [
      '--sort=name', `--mtime=@${archiveEpoch()}`, '--owner=0', '--group=0', '--numeric-owner', '--mode=u+rwX,go+rX,go-w',
      '-cf', plainTar, '-C', staging, name,
    ]);
    // Node's gzip writes no timestamp or file name into the header (gzip(1) would).
    const tmpTarball = `${tarball}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await pipeline(createReadStream(plainTar), createGzip({ level: 9 }), createWriteStream(tmpTarball));
      renameSync(tmpTarball, tarball);
    } finally {
      rmSync(tmpTarball, { force: true });
    }
    const sha256 = await sha256File(tarball);
    const sha256_file = `${tarball}.sha256`;
    writeFileAtomic(sha256_file, `${sha256}  ${file}\n`);
    const manifest: BundleManifest = {
      version, file, sha256, node_abi: process.versions.modules, node_version: process.versions.node, source_sha256,
      built_by: opts.built_by ?? 'build-bundle', built_at: new Date().toISOString(),
    };
    writeFileAtomic(join(outDir, 'agent.json'), `${JSON.stringify(manifest, null, 2)}\n`);
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

function parseArgs(argv: string[]): { out_dir?: string; version?: string; built_by?: string } {
  const out: { out_dir?: string; version?: string; built_by?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--version') out.version = argv[++i];
    else if (arg.startsWith('--version=')) out.version = arg.slice('--version='.length);
    // Set by the control plane's automatic build (bundle-cache.ts), which runs this script.
    else if (arg === '--built-by') out.built_by = argv[++i];
    else if (arg === '--help' || arg === '-h') {
      console.log('usage: node_modules/.bin/tsx installer/build-bundle.ts [out_dir] [--version X]');
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
