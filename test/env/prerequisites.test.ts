import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// `pnpm install` runs this check first (pnpm:devPreinstall): on a machine without the build tools
// the user must read what is missing and the command that installs it, not a node-gyp failure.
const SCRIPT = join(resolve(dirname(fileURLToPath(import.meta.url))), 'check-prerequisites.mjs');

t.test('names each missing build tool and the command that installs it', async (t) => {
  const bin = mkdtempSync(join(tmpdir(), 'vantage-prereq-'));
  t.teardown(() => rmSync(bin, { recursive: true, force: true }));
  // A PATH holding only node and sh: no make, no compiler, no python3.
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync('/bin/sh', join(bin, 'sh'));
  const res = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', env: { PATH: bin } });
  t.equal(res.status, 1);
  t.match(res.stderr, /missing: make, g\+\+ \(a C\+\+ compiler\), python3/);
  t.match(res.stderr, /sudo apt-get install -y make g\+\+ python3/);
  t.match(res.stderr, /sudo dnf install -y make gcc-c\+\+ python3/);
});

t.test('passes here, where the suite builds (and with --installed: dependencies and addons load)', async (t) => {
  for (const args of [[], ['--installed']]) {
    const res = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
    t.equal(res.status, 0, `${args.join(' ')}\n${res.stderr}`);
  }
});
