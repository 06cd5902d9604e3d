/**
 * Process and API helpers shared by the namespace-network benchmarks (e2e-network.ts,
 * agent-http-network.ts): polling with a bound, JSON calls on the /v1 API, free ports, waiting for a
 * child's line, stopping a child.
 */
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `fn` until it returns a value; polls every `every_ms`. @throws Error naming `what` after `timeout_ms` */
export async function waitFor<T>(what: string, timeout_ms: number, fn: () => Promise<T | null>, every_ms = 100): Promise<T> {
  const until = Date.now() + timeout_ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeout_ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every_ms));
  }
}

/** POST/GET JSON on the API; resolves `data` of the envelope. @throws Error with status and error code when not 2xx */
export async function api<T = any>(base: string, method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json().catch(() => null)) as { data?: T; error?: { code: string } } | null;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json?.error?.code ?? ''}`);
  return json!.data as T;
}

/** A free TCP port on `host` (listen on 0, close). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
}

/** Wait until `child` prints `word` on stdout. @throws Error when it exits first */
export function waitForLine(child: ChildProcess, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (c: Buffer) => { seen += c.toString(); if (seen.includes(word)) resolve(); });
    child.once('exit', (code) => reject(new Error(`process exited ${code} before printing ${word}`)));
  });
}

/** Send SIGTERM and wait for the exit (SIGKILL after 5 s). */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => { clearTimeout(kill); resolve(); });
    child.kill('SIGTERM');
  });
}

/**
 * What a namespace-network benchmark builds on: `cleanups` run last-first by `close()` (errors
 * ignored), a temporary `work` folder removed at close, `log_dir` (emptied now) where `logTo` writes
 * a child's stdout and stderr as `<name>.log`, and `env`, this process's environment without
 * NODE_OPTIONS (so children do not inherit the benchmark's loader).
 */
export function benchWorkspace(work_prefix: string, log_dir: string) {
  const cleanups: Array<() => unknown> = [];
  const close = async () => { for (const fn of cleanups.splice(0).reverse()) await Promise.resolve().then(fn).catch(() => {}); };
  const work = mkdtempSync(join(tmpdir(), work_prefix));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  rmSync(log_dir, { recursive: true, force: true });
  mkdirSync(log_dir, { recursive: true });
  const { NODE_OPTIONS: _dropped, ...env } = process.env;
  const logTo = (child: ChildProcess, name: string) => {
    const out = createWriteStream(join(log_dir, `${name}.log`));
    child.stdout?.pipe(out, { end: false });
    child.stderr?.pipe(out, { end: false });
  };
  return { cleanups, close, work, log_dir, env, logTo };
}
