#!/usr/bin/env node
// The whole test suite: the test environment (test/env/provision.sh: Debian packages and a Postgres
// server on 127.0.0.1:5432, installed as root when missing; skip with VANTAGE_TEST_PROVISION=0),
// the type check over every package, then every tap test file.
// Prints each test file's outcome, the failures in full, and a last line `N passed, N failed`
// (N counts tap's top-level test files plus the type check; assertions are reported beside it).
// Full TAP output is kept in .tap/report.tap. Extra arguments are passed to tap (file filters).
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
let passed = 0;
let failed = 0;

function run(cmd, cmdArgs, onLine) {
  return new Promise((resolve) => {
    const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    const rl = createInterface({ input: child.stdout });
    rl.on('line', onLine);
    child.stderr.on('data', (d) => process.stderr.write(d));
    child.on("close", (code) => { rl.close(); resolve(code ?? 1); });
  });
}

if (process.env.VANTAGE_TEST_PROVISION !== '0') {
  console.log('▶ test environment (test/env/provision.sh)');
  const code = await run('bash', ['test/env/provision.sh'], (line) => console.log(line));
  if (code !== 0) { console.log('not ok - test environment: see above'); console.log('0 passed, 1 failed'); process.exit(1); }
}

console.log('▶ type check (tsc --noEmit over shared-protocol, control-plane, node-agent, test)');
const tscStarted = Date.now();
const tscCode = await run('node_modules/.bin/tsc', ['--noEmit', '-p', 'tsconfig.json'], (line) => console.log(line));
if (tscCode === 0) { passed++; console.log(`ok - type check (${((Date.now() - tscStarted) / 1000).toFixed(1)} s)`); }
else { failed++; console.log('not ok - type check'); }

mkdirSync('.tap', { recursive: true });
const report = createWriteStream('.tap/report.tap');
let summary = null;
let failureBlock = null;
console.log('▶ tap');
const tapCode = await run('node_modules/.bin/tap', ['--reporter=tap', ...args], (line) => {
  report.write(line + '\n');
  const top = /^(not ok|ok) \d+ - (.*)$/.exec(line);
  if (top) {
    if (top[1] === 'ok') passed++; else failed++;
    if (failureBlock) { console.log(failureBlock.join('\n')); failureBlock = null; }
    console.log(line);
    return;
  }
  if (/^\s+not ok /.test(line)) failureBlock = (failureBlock ?? []).concat(line);
  else if (failureBlock && failureBlock.length < 400) failureBlock.push(line);
  const m = /^# (\{ total: .* \})$/.exec(line);
  if (m) summary = m[1];
});
report.end();
if (summary) console.log(`assertions: ${summary}`);
if (tapCode !== 0 && failed === 0) { failed++; console.log(`not ok - tap exited with ${tapCode}`); }
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
