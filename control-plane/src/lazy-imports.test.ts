import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

/*
 * The SDKs a feature needs only when it is used (Stripe, PDF reports and their CJK fonts,
 * passkeys, SMTP, device-login QR codes, ACME, Markdown of blog posts and postmortems, the SSL
 * lookup's ASN.1 parsers) are loaded at that feature's first use, not when the
 * app's modules load: they were 431 of the app's 2,042 modules at start, and every test file of
 * the app pays that load again. A child process loads the app's modules (test-support/app.ts: the
 * app, its dependencies and every job) with a resolve hook that appends each specifier it
 * resolves to a file, synchronously (so the file is whole when the import settles), then lists the
 * CommonJS modules in require's cache: a package loaded with createRequire bypasses the hook.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAZY = ['stripe', 'pdf-lib', '@pdf-lib/fontkit', '@simplewebauthn/server', 'nodemailer', 'qrcode', 'acme-client',
  'markdown-it', 'sanitize-html', '@peculiar/asn1-schema', '@peculiar/asn1-x509', '@peculiar/asn1-ocsp'];

const HOOK = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  appendFileSync(file, specifier + '\\n');
  return next(specifier, context);
}
`;

const SCRIPT = `
import { register, createRequire } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}), import.meta.url, { data: { file: process.env.RESOLVED_FILE } });
await import('tsx/esm');
await import('./control-plane/src/test-support/app.ts');
process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
process.exit(0);
`;

t.test('loading the app loads none of the SDKs it loads at first use', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-lazy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'resolved.txt');
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', RESOLVED_FILE: file }, maxBuffer: 16 * 1024 * 1024,
  });
  const required = JSON.parse(stdout) as string[];
  const specifiers = readFileSync(file, 'utf8').split('\n');
  t.ok(specifiers.includes('hono'), 'the hook saw the app\'s packages (hono among them)');
  t.ok(required.length > 0, 'require\'s cache lists the CommonJS modules loaded');
  for (const pkg of LAZY) {
    t.notOk(specifiers.some((s) => s === pkg || s.startsWith(`${pkg}/`)), `${pkg} not imported at load`);
    t.notOk(required.some((path) => path.includes(`/node_modules/${pkg}/`)), `${pkg} not required at load`);
  }
});
