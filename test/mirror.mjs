// The test mirror: every TypeScript file of the repository transpiled once to JavaScript, so a test
// file runs as plain ESM in a Node.js process with no loader hook at all.
//
// Why: through tsx's hook (`--import=tsx`), every module a process loads, a package's too, costs
// two round trips to the hooks thread (resolve and load); a file importing the app loads ~1,330
// of ours and as many again from node_modules, about 2 to 3 s of CPU before its first test. The
// mirror is what tsx would produce (the same esbuild transform of each file on its own, with the
// repository's tsconfig options), written to disk once per suite run.
//
// Layout, under .tap/mirror/:
// - `<path>.js` for each `<path>.ts`, so the sources' `./x.js` specifiers resolve as they do in a
//   build. `import.meta.url` (and `.filename`, `.dirname`) is the original `.ts` file's, so code
//   that reads a file beside itself (migrations, docs, fixtures) reads the repository's.
// - `<package>/package.json`: the workspace package's, its `.ts` entry points named `.js`.
// - `<package>/node_modules/`: links to the package's own dependencies, the workspace ones
//   (`@vantage/*`) to their mirror, so a dependency resolves exactly as from the sources.
// The web console's sources are left out: they import the bundler way (no extensions), which
// plain Node.js does not resolve, and Vite builds them. A test file importing them has no mirror
// and runs through tsx (mirrorOf). A test that starts a worker or a process on TypeScript files
// registers tsx there itself (`tsx/esm/api`), or starts `node --import=tsx`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the mirror is written (repository-relative paths map below it unchanged, `.ts` to `.js`). */
export const MIRROR = join(ROOT, '.tap', 'mirror');

/**
 * The packages whose dependencies the mirror links: the root and pnpm-workspace.yaml's, but the
 * web console, whose sources are not mirrored (CONSOLE_SOURCES).
 */
const PACKAGES = ['.', 'shared-protocol', 'control-plane', 'node-agent', 'test'];

/** Sources not mirrored: the web console's (see above). */
const CONSOLE_SOURCES = 'control-plane/console/';

/** A test file importing the web console's sources: not mirrored, so it runs through tsx. */
const IMPORTS_CONSOLE = /\bfrom\s+['"][^'"]*\/console\/src\//;

/** Compiler options that change what a transform emits (tsconfig.base.json; tsx reads the same). */
function tsconfigRaw() {
  const base = JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8')).compilerOptions;
  return { compilerOptions: { target: base.target, verbatimModuleSyntax: base.verbatimModuleSyntax, useDefineForClassFields: true } };
}

/** The repository's TypeScript sources (tracked and new, not ignored), `.d.ts` and the console's left out. */
function sources() {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.ts', '*.mts'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  return out.split('\0').filter((f) => f && !f.endsWith('.d.ts') && !f.includes('node_modules/') && !f.startsWith(CONSOLE_SOURCES) && existsSync(join(ROOT, f)));
}

/** `x.ts` → `x.js`, `x.mts` → `x.mjs`. */
const jsName = (file) => file.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs');

/**
 * Transpile one file into the mirror (esbuild's transform, as tsx does, with an inline source map).
 * @returns false for a test file left to tsx (IMPORTS_CONSOLE), true when written
 */
async function transpile(esbuild, options, file) {
  const path = join(ROOT, file);
  const url = pathToFileURL(path).href;
  const text = await readFile(path, 'utf8');
  if (file.endsWith('.test.ts') && IMPORTS_CONSOLE.test(text)) return false;
  const { code } = await esbuild.transform(text, {
    ...options,
    sourcefile: path,
    define: {
      'import.meta.url': JSON.stringify(url),
      'import.meta.filename': JSON.stringify(path),
      'import.meta.dirname': JSON.stringify(dirname(path)),
    },
  });
  const out = join(MIRROR, jsName(file));
  mkdirSync(dirname(out), { recursive: true });
  await writeFile(out, code);
  return true;
}

/** The package's package.json with its `.ts` entry points (exports, main) named as in the mirror. */
function mirrorManifest(pkg) {
  const file = join(ROOT, pkg, 'package.json');
  const text = readFileSync(file, 'utf8').replace(/"(\.\/[^"]+)\.ts"/g, '"$1.js"');
  mkdirSync(join(MIRROR, pkg), { recursive: true });
  writeFileSync(join(MIRROR, pkg, 'package.json'), text);
}

/** Links in `<mirror>/<pkg>/node_modules` to what `<pkg>/node_modules` holds; `@vantage/*` to the mirror's. */
function linkDependencies(pkg) {
  const from = join(ROOT, pkg, 'node_modules');
  if (!existsSync(from)) return;
  const to = join(MIRROR, pkg, 'node_modules');
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (entry === '.bin' || entry === '.pnpm' || entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      mkdirSync(join(to, entry), { recursive: true });
      for (const scoped of readdirSync(join(from, entry))) {
        const name = `${entry}/${scoped}`;
        const target = entry === '@vantage' ? workspaceMirror(from, name) : join(from, name);
        symlinkSync(relative(join(to, entry), target), join(to, name));
      }
    } else {
      symlinkSync(join(from, entry), join(to, entry));
    }
  }
}

/** The mirror folder of workspace package `name` as linked from `node_modules` folder `from`. */
function workspaceMirror(from, name) {
  return join(MIRROR, relative(ROOT, realpathSync(join(from, name))));
}

/**
 * Write the mirror afresh (about 1,500 files; a few seconds).
 * @returns `{ files, ms }`: how many sources were transpiled and how long it took
 * @throws Error from esbuild (a syntax error: the type check reports it too) or the file system
 */
export async function buildMirror() {
  const started = Date.now();
  const esbuild = await import(createRequire(join(ROOT, 'test', 'package.json')).resolve('esbuild'));
  rmSync(MIRROR, { recursive: true, force: true });
  const options = { loader: 'ts', format: 'esm', platform: 'node', target: 'node20', sourcemap: 'inline', sourcesContent: false, tsconfigRaw: tsconfigRaw() };
  const queue = sources();
  let files = 0;
  // A few transforms in flight at a time: esbuild's service runs them on its own threads.
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (queue.length) if (await transpile(esbuild, options, queue.shift())) files++;
  }));
  for (const pkg of PACKAGES) {
    mirrorManifest(pkg);
    linkDependencies(pkg);
  }
  return { files, ms: Date.now() - started };
}

/**
 * The file to run for test file `file` (repository-relative): its mirror, or `null` when it has
 * none and runs through tsx (a test file importing the console's sources, or a mirror not built).
 */
export function mirrorOf(file) {
  const out = join(MIRROR, jsName(file));
  return existsSync(out) ? out : null;
}
