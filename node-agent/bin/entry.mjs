// What the node-agent launchers (node-agent.mjs, vantage.mjs) run: the build (`pnpm build`,
// dist/) when NODE_ENV=production, else the TypeScript sources through tsx's loader (development,
// tests). Plain JavaScript, so production loads no TypeScript tooling.
import { existsSync } from 'node:fs';

/**
 * Run `dist/<built>` (NODE_ENV=production) or `src/<source>` through tsx.
 * @param built file name in node-agent/dist/ (e.g. `node-agent.mjs`)
 * @param source path under node-agent/src/ (e.g. `cli/main.ts`)
 * Sets exit status 1 with a message when production is asked for and there is no build.
 */
export async function runEntry(built, source) {
  if (process.env.NODE_ENV === 'production') {
    const url = new URL(`../dist/${built}`, import.meta.url);
    if (!existsSync(url)) {
      process.stderr.write(`node-agent: NODE_ENV=production runs dist/${built}, which is missing: run \`pnpm build\` first\n`);
      process.exitCode = 1;
      return;
    }
    process.setSourceMapsEnabled(true);
    await import(url.href);
    return;
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL(`../src/${source}`, import.meta.url).href);
}
