import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

// What the console's browser tests share: Debian's Chromium, the console build, axe-core and the
// screenshots written to .tap/console/.

export const CHROMIUM_PATH = process.env.VANTAGE_CHROMIUM ?? '/usr/bin/chromium';
export const skip = existsSync(CHROMIUM_PATH) ? false : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set VANTAGE_CHROMIUM)`;
const CONSOLE = fileURLToPath(new URL('../../control-plane/console/', import.meta.url));
export const DIST = join(CONSOLE, 'dist');
export const SHOTS = fileURLToPath(new URL('../../.tap/console/', import.meta.url));
export const LOOPBACK = ['127.0.0.0/8'];
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The console build (pnpm test builds it first; built here when missing so this file runs alone). */
export function ensureBuilt(): void {
  if (existsSync(join(DIST, 'index.html'))) return;
  const r = spawnSync('pnpm', ['--filter', '@vantage/console', 'build'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('console build failed');
}

declare const axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };

/** Run axe-core (WCAG 2 A/AA rules) on the page and screenshot it; the eval goes through DevTools, so the page's CSP stays strict. */
export async function check(t: Test, page: Page, name: string): Promise<void> {
  await page.evaluate(AXE);
  const result = await page.evaluate(() => axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }));
  t.same(result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `axe: no violations on ${name}`);
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}
declare const document: unknown;

/** A fresh headless Chromium profile at 1366x768 (closed at teardown) and the page's script errors. */
export async function openBrowser(t: Test): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const profileDir = mkdtempSync(join(tmpdir(), 'console-chromium-'));
  t.teardown(() => rmSync(profileDir, { recursive: true, force: true }));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH, headless: true, viewport: { width: 1366, height: 768 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(String(e)));
  // Deletions ask first (window.confirm): the tests say yes.
  page.on('dialog', (d) => void d.accept());
  return { context, page, problems };
}


/** Control-plane settings of a test that reads the e-mail it sends: the SMTP server at `smtp_url`, a delivery worker polling and retrying fast. */
export function mailConfig(smtp_url: string) {
  return { smtp_url, smtp_from: 'Vantage <noreply@vantage.test>', delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50, 50] };
}

/** Log in through the console's form; resolves on the monitor list. */
export async function loginInBrowser(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Email or username').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/monitors', { timeout: 30_000 });
}

/**
 * The value of the form control `control` once it equals `expected`, or its value after
 * `timeout_ms` (then the caller's assertion shows what it held): a control the console fills from
 * a request (a select whose options load) is empty until that request answers.
 */
export async function settledValue(control: Locator, expected: string, timeout_ms = 30_000): Promise<string> {
  const until = Date.now() + timeout_ms;
  for (;;) {
    const value = await control.inputValue();
    if (value === expected || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
