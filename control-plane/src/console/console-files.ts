import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { PrecompressedBody } from '../http/precompressed.js';

/** Content types of the files a Vite build writes. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};
/** Types worth compressing (images and fonts already are). */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt', '.webmanifest']);

/** One file of the build, read into memory: its bytes (br/gzip made on first use when worth it) and content type. */
export interface ConsoleFile {
  body: PrecompressedBody;
  content_type: string;
  mtime_ms: number;
}

/**
 * The built console's files, read from `dir` on first request and kept while their modification
 * time is unchanged (a rebuild is served without a restart). `relPath` is the URL path without its
 * leading slash; anything that would leave `dir` (`..`, absolute, NUL) or is not a regular file
 * gives null.
 */
export function consoleFiles(dir: string): (relPath: string) => Promise<ConsoleFile | null> {
  const cache = new Map<string, ConsoleFile>();
  return async (relPath) => {
    if (relPath.includes('\0') || relPath.includes('\\')) return null;
    const path = normalize(join(dir, relPath));
    if (!path.startsWith(normalize(dir) + sep)) return null;
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return null;
    const cached = cache.get(path);
    if (cached && cached.mtime_ms === info.mtimeMs) return cached;
    const body = await readFile(path);
    const ext = extname(path);
    const file: ConsoleFile = {
      body: new PrecompressedBody(body, COMPRESSIBLE.has(ext) && body.length > 512),
      content_type: CONTENT_TYPES[ext] ?? 'application/octet-stream',
      mtime_ms: info.mtimeMs,
    };
    cache.set(path, file);
    return file;
  };
}
