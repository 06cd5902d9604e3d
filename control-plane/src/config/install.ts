import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repository's installer folder, seen from this file (control-plane/src/config/). */
const installerDir = fileURLToPath(new URL('../../../installer/', import.meta.url));

/**
 * Installer configuration (docs/operators/install.md): where GET /install.sh and GET /install/agent.tar.gz
 * take their files from. The script's base URL comes from `public_url` (platform section).
 */
export const installConfigSchema = z.object({
  /**
   * Folder of the agent bundle: `agent.json` (the manifest) and the `vantage-agent-<version>.tar.gz`
   * it names. The control plane builds it there on the first request when it holds none
   * (installer/bundle-cache.ts); a bundle built by hand with installer/build-bundle.ts is served as
   * it is (VANTAGE_INSTALL_BUNDLE_DIR; default installer/dist/ of this repository).
   */
  install_bundle_dir: z.string().min(1).default(`${installerDir}dist`),
  /** The installer script served at GET /install.sh (VANTAGE_INSTALL_SCRIPT_PATH). */
  install_script_path: z.string().min(1).default(`${installerDir}install.sh`),
});
