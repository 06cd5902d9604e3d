import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './bundle-sources.js';

/** The part of esbuild's API the build scripts use (esbuild's own types are not visible from installer/). */
export interface Esbuild {
  build(options: Record<string, unknown>): Promise<{
    metafile?: { inputs: Record<string, unknown>; outputs: Record<string, { bytes: number }> };
    /** With `write: false`: the files esbuild would have written (absolute `path`, `text`). */
    outputFiles?: Array<{ path: string; text: string }>;
  }>;
}

/**
 * esbuild is not hoisted to the root: take the test package's, else the one tsx (a control-plane
 * dependency) brings, so a control plane installed without the test package still builds.
 * @throws Error when neither can be resolved
 */
export async function loadEsbuild(): Promise<Esbuild> {
  let path: string;
  try {
    path = createRequire(join(REPO_ROOT, 'test', 'package.json')).resolve('esbuild');
  } catch {
    const tsx = createRequire(join(REPO_ROOT, 'control-plane', 'package.json')).resolve('tsx/package.json');
    path = createRequire(tsx).resolve('esbuild');
  }
  return (await import(pathToFileURL(path).href)) as Esbuild;
}
