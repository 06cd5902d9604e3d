import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initEmbeddedDataDir, isEmbeddedDataDir } from '../../control-plane/src/db/embedded.js';
import { ROOT } from './processes.js';

/** PGlite's version: an empty database made by one version is only reused by the same one. */
function pgliteVersion(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'control-plane', 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Where the empty embedded database the demo copies is kept (made by the first start). */
export function demoDatabaseCache(): string {
  return join(ROOT, '.data', 'cache', `pglite-${pgliteVersion()}`);
}

/**
 * Give the demo's control plane (data folder `cp_data_dir`) a fresh, empty embedded database
 * without running initdb each time: initdb (15-20 s and about 0.9 GiB) runs once per PGlite
 * version into `.data/cache/pglite-<version>` (kept when the demo wipes `.data/demo`), and each
 * start copies that empty cluster (about 40 MB, well under a second). The control plane then
 * applies the migrations as on any new database.
 * @returns whether the cached cluster was there already (false: it was made now)
 */
export async function prepareDemoDatabase(cp_data_dir: string): Promise<boolean> {
  const cached = demoDatabaseCache();
  const warm = isEmbeddedDataDir(cached);
  await initEmbeddedDataDir(cached);
  cpSync(cached, join(cp_data_dir, 'pglite'), { recursive: true });
  return warm;
}
