import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

/*
 * The SDKs a feature needs only when it is used (Stripe, PDF reports, passkeys, SMTP, device-login
 * QR codes, ACME) are loaded at that feature's first use, not when the app's modules load: they
 * were 431 of the app's 2,042 modules at start, and every test file of the app pays that load
 * again. A child process loads the app's modules (test-support/app.ts: the app, its
 * dependencies and every job) with a resolve hook recording each package it resolves.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAZY = ['stripe', 'pdf-lib', '@simplewebauthn/server', 'nodemailer', 'qrcode', 'acme-client'];

const HOOK = `
let seen;
export function initialize(data) { seen = data.port; }
export async function resolve(specifier, context, next) {
  seen.postMessage(specifier);
  return next(specifier, context);
}
`;

const SCRIPT = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const specifiers = new Set();
port1.on('message', (s) => specifiers.add(s));
port1.unref();
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}), import.meta.url, { data: { port: port2 }, transferList: [port2] });
await import('tsx/esm');
await import('./control-plane/src/test-support/app.ts');
await new Promise((r) => setTimeout(r, 200));
process.stdout.write(JSON.stringify([...specifiers]));
process.exit(0);
`;

t.test('loading the app resolves none of the SDKs it loads at first use', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '' }, maxBuffer: 16 * 1024 * 1024,
  });
  const specifiers = JSON.parse(stdout) as string[];
  t.ok(specifiers.includes('hono'), 'the hook saw the app\'s packages (hono among them)');
  for (const pkg of LAZY) t.notOk(specifiers.some((s) => s === pkg || s.startsWith(`${pkg}/`)), `${pkg} not resolved at load`);
});
