import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The console package's build output, seen from this file (control-plane/src/config/). */
const consoleDist = fileURLToPath(new URL('../../console/dist', import.meta.url));

/** Web console configuration (docs/console.md). */
export const consoleConfigSchema = z.object({
  /**
   * Folder of the built web console (`index.html` and `assets/`), served at / (VANTAGE_CONSOLE_DIR;
   * default control-plane/console/dist of this repository, written by
   * `pnpm --filter @vantage/console build`). Without a built console the API works as before and
   * / answers a page saying how to build it.
   */
  console_dir: z.string().min(1).default(consoleDist),
});
