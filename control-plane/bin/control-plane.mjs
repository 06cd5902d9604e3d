#!/usr/bin/env node
// Launcher: answers --help and --version itself (nothing created, nothing started), refuses any
// other argument with status 2, and otherwise starts the server: from the build (`pnpm build`:
// dist/main.mjs, plain JavaScript) when NODE_ENV=production, else from the TypeScript entry point
// through tsx's loader (no build step in development and tests).
import { existsSync } from 'node:fs';
import { USAGE, VERSION, parseArgs } from './usage.mjs';

const command = parseArgs(process.argv.slice(2));
if (command.action === 'help') {
  process.stdout.write(USAGE);
} else if (command.action === 'version') {
  process.stdout.write(`${VERSION}\n`);
} else if (command.action === 'bad') {
  process.stderr.write(`control-plane.mjs: unknown argument ${command.arg}\n\n${USAGE}`);
  process.exitCode = 2;
} else if (process.env.NODE_ENV === 'production') {
  const built = new URL('../dist/main.mjs', import.meta.url);
  if (!existsSync(built)) {
    process.stderr.write('control-plane.mjs: NODE_ENV=production runs dist/main.mjs, which is missing: run `pnpm build` first\n');
    process.exitCode = 1;
  } else {
    process.setSourceMapsEnabled(true);
    await import(built.href);
  }
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
