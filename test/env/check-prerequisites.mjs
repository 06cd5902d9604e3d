#!/usr/bin/env node
// What a machine needs before `pnpm install` can build Vantage, checked up front so the user reads
// one clear list instead of a node-gyp failure: Node.js 20.18 or newer (the agent's undici needs
// it), and make, a C++ compiler and python3 (the native addons better-sqlite3, raw-socket and
// zstd-napi are compiled from source). Run by `pnpm install` (the root package's pnpm:devPreinstall script).
// With --installed (run by `pnpm start`) it also checks that `pnpm install` has run and the native
// addons load. Exit status 0 when all is there, 1 with the list of what is missing.
// Plain JavaScript on purpose: it runs before any dependency (tsx, TypeScript) is installed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MIN_NODE = [20, 18];

/** True when `cmd` is an executable on PATH. */
function have(cmd) {
  return spawnSync('sh', ['-c', 'command -v "$0"', cmd], { stdio: 'ignore' }).status === 0;
}

const problems = [];
const tools = [];

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
  problems.push(`Node.js ${process.versions.node} is too old: Vantage needs ${MIN_NODE.join('.')} or newer (https://nodejs.org/en/download, or NodeSource's packages)`);
}
if (!have('make')) tools.push({ name: 'make', apt: 'make', dnf: 'make' });
if (!have('g++') && !have('c++')) tools.push({ name: 'g++ (a C++ compiler)', apt: 'g++', dnf: 'gcc-c++' });
if (!have('python3')) tools.push({ name: 'python3', apt: 'python3', dnf: 'python3' });
if (tools.length > 0) {
  problems.push([
    `missing: ${tools.map((t) => t.name).join(', ')} (needed to compile the native modules better-sqlite3, raw-socket and zstd-napi)`,
    `  Debian/Ubuntu: sudo apt-get install -y ${tools.map((t) => t.apt).join(' ')}`,
    `  Fedora/RHEL:   sudo dnf install -y ${tools.map((t) => t.dnf).join(' ')}`,
  ].join('\n'));
}

if (process.argv.includes('--installed') && problems.length === 0) {
  if (!existsSync(join(ROOT, 'node_modules', '.bin', 'tsx'))) {
    problems.push('the dependencies are not installed: run `pnpm install` first');
  } else {
    const agent = createRequire(join(ROOT, 'node-agent', 'package.json'));
    const controlPlane = createRequire(join(ROOT, 'control-plane', 'package.json'));
    for (const [load, addon] of [[agent, 'better-sqlite3'], [agent, 'raw-socket'], [controlPlane, 'zstd-napi']]) {
      try {
        load(addon);
      } catch (err) {
        problems.push(`the native module ${addon} does not load (${String(err.message).split('\n')[0]}): run \`pnpm install\` again (\`pnpm rebuild\` after a Node.js upgrade)`);
      }
    }
  }
}

if (problems.length > 0) {
  process.stderr.write(`\nVantage cannot be built on this machine yet:\n\n${problems.map((p) => `- ${p}`).join('\n')}\n\n`);
  process.exit(1);
}
