import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import type { Logger } from 'pino';
import { chromiumArgs } from './flags.js';
import { chromiumType } from './playwright.js';
import { chromiumLaunch } from './sandbox.js';
import { BrowserProxy, bindProxySession } from './proxy.js';
import { findPidByArgument, killTree, treeRssBytes } from './process-tree.js';

/** Options of the node's browser (docs/operators/agent.md "Browser checks"). */
export interface BrowserPoolOptions {
  /** The Chromium binary (Debian: /usr/bin/chromium). Nothing is downloaded. */
  executable_path: string;
  /** Checks running at once (default 2); the rest wait for a slot. */
  concurrency?: number;
  /** Relaunch the browser after this many checks (default 200), so leaks cannot accumulate. */
  checks_per_browser?: number;
  /** Relaunch the browser once its processes' memory (summed PSS, process-tree.ts) exceeds this, bytes (default 1 GiB). */
  rss_max_bytes?: number;
  /** V8 heap limit per renderer, MiB (default 256). */
  js_heap_max_mb?: number;
  /** Bound on a launch, ms (default 30 s). */
  launch_timeout_ms?: number;
  /** How long a context may take to close before the browser is deemed hung and killed, ms (default 5 s). */
  close_timeout_ms?: number;
  /**
   * How long a check may go on after its signal aborts before the browser is deemed hung and
   * killed (every pending call of the check then fails), ms (default 3 s).
   */
  abort_grace_ms?: number;
  log: Logger;
}

/** Thrown by {@link BrowserPool.use} when the browser died under a check (crash, kill, hang). */
export class BrowserCrashedError extends Error {
  constructor(detail: string) {
    super(`browser crashed during the check (${detail}); it is relaunched for the next check`);
    this.name = 'BrowserCrashedError';
  }
}

interface Instance {
  browser: Browser;
  /** The browser's target proxy: closed with the browser. */
  proxy: BrowserProxy;
  pid: number | null;
  checks: number;
  active: number;
  dead: boolean;
  retiring: boolean;
  drained: Promise<void>;
  onDrained: () => void;
}

/** `p`, or a rejection with `signal`'s reason as soon as it aborts (`p` goes on; its rejection is then ignored). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([p, new Promise<'timeout'>((resolve) => { const t = setTimeout(() => resolve('timeout'), ms); t.unref(); })]);

/**
 * One Chromium per node, driven through playwright-core: a fresh context per check, at most
 * `concurrency` checks at once, relaunched after it crashed or hung (its process tree is
 * SIGKILLed), after `checks_per_browser` checks, or when its memory exceeds `rss_max_bytes`.
 * Each browser has its own target proxy (proxy.ts), its only way out; each context gets its own
 * proxy session, whose policy the request guard sets (guard.ts): until then it reaches nothing.
 */
export class BrowserPool {
  private readonly opts: Required<Omit<BrowserPoolOptions, 'log'>>;
  private readonly log: Logger;
  /** The logger given, for the proxies' own `module`. */
  private readonly root_log: Logger;
  private current: Instance | null = null;
  private launching: Promise<Instance> | null = null;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;
  /** Browsers launched so far (tests and the bench read it). */
  launches = 0;

  constructor(options: BrowserPoolOptions) {
    this.root_log = options.log;
    this.log = options.log.child({ module: 'browser.pool' });
    this.opts = {
      executable_path: options.executable_path,
      concurrency: options.concurrency ?? 2,
      checks_per_browser: options.checks_per_browser ?? 200,
      rss_max_bytes: options.rss_max_bytes ?? 1024 ** 3,
      js_heap_max_mb: options.js_heap_max_mb ?? 256,
      launch_timeout_ms: options.launch_timeout_ms ?? 30_000,
      close_timeout_ms: options.close_timeout_ms ?? 5000,
      abort_grace_ms: options.abort_grace_ms ?? 3000,
    };
  }

  /** The running browser's main pid (null when none is running or it was not found). */
  pid(): number | null {
    return this.current && !this.current.dead ? this.current.pid : null;
  }

  /** `http://127.0.0.1:<port>` of the running browser's target proxy (null when none runs). */
  proxyServer(): string | null {
    return this.current && !this.current.dead ? this.current.proxy.server : null;
  }

  /** Memory of the running browser's processes (summed PSS), bytes (0 when none runs). */
  rssBytes(): number {
    const pid = this.pid();
    return pid ? treeRssBytes(pid) : 0;
  }

  /**
   * Run `fn` with a fresh browser context (options `context`; its `proxy` is always the browser's
   * target proxy, through a session of its own: proxySessionOf(ctx)), closed afterwards with its
   * session. Waits for a slot and for the browser's launch; rejects with `signal`'s reason if
   * aborted while waiting for either; with BrowserCrashedError when the browser died under the
   * check, or when the check had not ended `abort_grace_ms` after `signal` aborted (the browser is
   * then killed and whatever the check's calls do later is ignored); or with the launch error.
   */
  async use<T>(context: BrowserContextOptions, signal: AbortSignal, fn: (ctx: BrowserContext) => Promise<T>): Promise<T> {
    await this.acquire(signal);
    let inst: Instance | null = null;
    let watchdog: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      // A launch (a first check, or after a crash) takes seconds, more on a loaded machine: the
      // check's deadline holds meanwhile; the launch goes on for the checks after it.
      inst = await abortable(this.instance(), signal);
      inst.active++;
      // From here the check has abort_grace_ms after its deadline to end. Playwright calls need
      // not settle when the browser stalls or when the context closes under them (a newPage()
      // in flight as its context closed never settled), nor always when the browser is killed
      // under them (seen once: no browser process left, the call still pending): so the check
      // ends here, with the browser killed, whatever its calls do; what they do later is ignored.
      const used = inst;
      let hung: (err: Error) => void = () => undefined;
      const killed = new Promise<never>((_, reject) => { hung = reject; });
      onAbort = () => {
        watchdog = setTimeout(() => {
          this.log.warn({ pid: used.pid, grace_ms: this.opts.abort_grace_ms }, 'browser check did not end after its deadline: killing the browser');
          this.kill(used);
          hung(new BrowserCrashedError(`the check had not ended ${this.opts.abort_grace_ms} ms after its deadline: the browser was killed`));
        }, this.opts.abort_grace_ms);
        watchdog.unref();
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      const work = this.check(used, context, fn);
      work.catch(() => undefined);
      return await Promise.race([work, killed]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
      clearTimeout(watchdog);
      if (inst) this.release(inst);
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** One check on `inst`: a context of its own through a proxy session of its own, closed afterwards with its session ({@link use}). */
  private async check<T>(inst: Instance, context: BrowserContextOptions, fn: (ctx: BrowserContext) => Promise<T>): Promise<T> {
    const session = await inst.proxy.openSession();
    let ctx: BrowserContext;
    try {
      ctx = await inst.browser.newContext({ ...context, proxy: { server: session.server, bypass: '<-loopback>' } });
    } catch (err) {
      await inst.proxy.closeSession(session);
      if (inst.dead || !inst.browser.isConnected()) throw new BrowserCrashedError((err as Error).message.split('\n')[0] ?? 'closed');
      throw err;
    }
    bindProxySession(ctx, session);
    let result: T;
    try {
      result = await fn(ctx);
    } catch (err) {
      if (inst.dead || !inst.browser.isConnected()) throw new BrowserCrashedError((err as Error).message.split('\n')[0] ?? 'closed');
      throw err;
    } finally {
      if (!inst.dead && await withTimeout(ctx.close().catch(() => undefined), this.opts.close_timeout_ms) === 'timeout') {
        this.log.warn({ pid: inst.pid }, 'browser context did not close: killing the browser');
        this.kill(inst);
      }
      await inst.proxy.closeSession(session);
    }
    if (inst.dead || !inst.browser.isConnected()) throw new BrowserCrashedError('the browser exited');
    return result;
  }

  /** Close the browser; later `use` calls reject. */
  async close(): Promise<void> {
    this.closed = true;
    const inst = this.current ?? (this.launching ? await this.launching.catch(() => null) : null);
    this.current = null;
    if (inst) await this.shutdown(inst);
  }

  private async acquire(signal: AbortSignal): Promise<void> {
    while (this.running >= this.opts.concurrency) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const i = this.waiting.indexOf(wake);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal.reason);
        };
        const wake = () => { signal.removeEventListener('abort', onAbort); resolve(); };
        this.waiting.push(wake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    signal.throwIfAborted();
    this.running++;
  }

  private async instance(): Promise<Instance> {
    for (;;) {
      if (this.closed) throw new Error('browser pool closed');
      const cur = this.current;
      if (cur && !cur.dead && !cur.retiring) return cur;
      // One browser per node: a retiring one finishes its checks before the next is launched.
      if (cur?.retiring && !cur.dead) { await cur.drained; continue; }
      this.launching ??= this.launch().finally(() => { this.launching = null; });
      this.current = await this.launching;
    }
  }

  private async launch(): Promise<Instance> {
    const marker = `--vantage-browser=${randomUUID()}`;
    const started = Date.now();
    // Sandboxed where the kernel allows, as the agent's user or (agent root) as nobody: sandbox.ts.
    const how = await chromiumLaunch(this.opts.executable_path, this.opts.launch_timeout_ms);
    const proxy = await BrowserProxy.start(this.root_log);
    let browser: Browser;
    try {
      browser = await (await chromiumType()).launch({
        executablePath: how.executablePath,
        chromiumSandbox: how.chromiumSandbox,
        headless: true,
        args: chromiumArgs({ js_heap_max_mb: this.opts.js_heap_max_mb, renderer_process_limit: Math.max(2, this.opts.concurrency) }, marker, proxy.server),
        timeout: this.opts.launch_timeout_ms,
        handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
      });
    } catch (err) {
      await proxy.close();
      throw err;
    }
    this.launches++;
    let onDrained = () => {};
    const drained = new Promise<void>((resolve) => { onDrained = resolve; });
    const inst: Instance = { browser, proxy, pid: findPidByArgument(marker), checks: 0, active: 0, dead: false, retiring: false, drained, onDrained };
    browser.on('disconnected', () => {
      if (!inst.retiring) this.log.warn({ pid: inst.pid }, 'browser exited unexpectedly');
      inst.dead = true;
      void proxy.close();
      if (this.current === inst) this.current = null;
      inst.onDrained();
    });
    this.log.info({ pid: inst.pid, launch_ms: Date.now() - started, version: browser.version(), user: how.user, sandbox: how.sandbox_off === null }, 'browser launched');
    if (how.sandbox_off && this.launches === 1) this.log.warn({ reason: how.sandbox_off }, 'Chromium runs without its sandbox: a page that exploits the renderer gets the agent\'s rights (docs/operators/agent.md "Browser sandbox")');
    return inst;
  }

  private release(inst: Instance): void {
    inst.active--;
    inst.checks++;
    if (!inst.dead && !inst.retiring) {
      const rss = inst.pid ? treeRssBytes(inst.pid) : 0;
      if (inst.checks >= this.opts.checks_per_browser || rss > this.opts.rss_max_bytes) {
        this.log.info({ pid: inst.pid, checks: inst.checks, rss_bytes: rss }, 'relaunching the browser');
        inst.retiring = true;
      }
    }
    if (inst.retiring && inst.active === 0) {
      if (this.current === inst) this.current = null;
      void this.shutdown(inst).then(() => inst.onDrained());
    }
  }

  private async shutdown(inst: Instance): Promise<void> {
    inst.retiring = true;
    if (inst.dead) return;
    if (await withTimeout(inst.browser.close().catch(() => undefined), this.opts.close_timeout_ms) === 'timeout') this.kill(inst);
    inst.dead = true;
    await inst.proxy.close();
  }

  private kill(inst: Instance): void {
    inst.dead = true;
    if (this.current === inst) this.current = null;
    if (inst.pid) killTree(inst.pid);
    void inst.proxy.close();
    inst.onDrained();
  }
}
