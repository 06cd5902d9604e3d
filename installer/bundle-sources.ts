import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (installer/ is one level down). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * What the agent bundle is made from, relative to the repository root: the agent's and the
 * protocol's sources, their package manifests, the lockfile (every third-party version) and the
 * build scripts themselves. Test files are included too: cheaper than telling them apart, and a
 * changed test only costs one rebuild.
 */
const SOURCES = [
  'node-agent/src', 'shared-protocol/src', 'node-agent/package.json', 'shared-protocol/package.json',
  'pnpm-lock.yaml', 'installer/build-bundle.ts', 'installer/native-deps.ts', 'installer/bundle-sources.ts',
];

function listFiles(path: string, out: string[]): void {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return; // a missing source changes the fingerprint by its absence
  }
  if (stat.isDirectory()) {
    for (const name of readdirSync(path).sort()) listFiles(join(path, name), out);
  } else if (stat.isFile()) out.push(path);
}

/**
 * Hex sha256 over the bundle's sources (paths and contents) and the Node.js that compiles its
 * native addons (ABI, platform, arch): equal fingerprints give byte-identical bundles, so a
 * bundle whose manifest carries the current fingerprint needs no rebuild.
 */
export function sourceFingerprint(repo_root = REPO_ROOT): string {
  const hash = createHash('sha256');
  hash.update(`node_abi=${process.versions.modules} platform=${process.platform} arch=${process.arch}\n`);
  const files: string[] = [];
  for (const source of SOURCES) listFiles(join(repo_root, source), files);
  for (const file of files) {
    const content = readFileSync(file);
    hash.update(`${relative(repo_root, file).split(sep).join('/')}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}

/**
 * Write `data` to `path` through a temporary file in the same folder and a rename, so a reader
 * (the control plane serving the bundle, a concurrent build) never sees a half-written file.
 */
export function writeFileAtomic(path: string, data: string | Buffer): void {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}
