#!/usr/bin/env node
// Launcher: answers --help and --version itself (nothing created, nothing started), refuses any
// other argument with status 2, and otherwise runs the TypeScript entry point through tsx's loader
// (no build step in development).
import { USAGE, VERSION, parseArgs } from './usage.mjs';

const command = parseArgs(process.argv.slice(2));
if (command.action === 'help') {
  process.stdout.write(USAGE);
} else if (command.action === 'version') {
  process.stdout.write(`${VERSION}\n`);
} else if (command.action === 'bad') {
  process.stderr.write(`control-plane.mjs: unknown argument ${command.arg}\n\n${USAGE}`);
  process.exitCode = 2;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
