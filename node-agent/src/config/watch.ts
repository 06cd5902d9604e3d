import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { Secret } from '../secret.js';
import { ConfigError, loadConfig, type ConfigSources } from './load.js';
import type { AgentConfig } from './schema.js';

/** How often the config file is read again, ms (a small JSON file: cheap). */
export const CONFIG_WATCH_INTERVAL_MS = 2000;

/** Keys whose change needs no restart: the token is read only to enroll, and the agent itself removes it once spent. */
const NOT_WATCHED = new Set<string>(['token']);

export interface ConfigWatchOptions {
  /** The config file the running agent read (loadConfig's `file`). */
  file: string;
  /** The sources the running config was loaded from: the file is re-read with the same flags and env. */
  sources: ConfigSources;
  /** The configuration the agent runs with. */
  running: AgentConfig;
  log: Logger;
  /** Read interval, ms (default {@link CONFIG_WATCH_INTERVAL_MS}). */
  interval_ms?: number;
}

const comparable = (v: unknown): unknown => (v instanceof Secret ? v.reveal() : v);

/**
 * Tell the operator when the config file changes under a running agent: every setting is read
 * once at start (docs/operators/agent.md "Changing settings"), so an edit takes effect only after
 * a restart. On each change the file is loaded as at start (same flags and env, which still win)
 * and compared with the running configuration; each setting whose value now differs is logged
 * once: `setting concurrency changed in /etc/vantage/agent.json; restart the agent to apply it`.
 * A file the agent would refuse at its next start (bad JSON, bad value) is logged once too.
 * Saving the same content again logs nothing; a setting put back to its running value is noted.
 */
export class ConfigFileWatch {
  readonly #o: ConfigWatchOptions;
  /** Setting → the new value (JSON) last reported, so each change is logged once. */
  readonly #reported = new Map<string, string>();
  #invalid: string | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(opts: ConfigWatchOptions) {
    this.#o = opts;
  }

  /**
   * Start watching: the file is read again every interval_ms and compared (no stat or fs.watchFile
   * gate: a change saved before the watcher's first stat, or within the file system's timestamp
   * granularity at the same size, would be missed). Does not keep the process alive; a read that
   * fails for another reason than a bad file is logged, never thrown.
   */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      try {
        this.check();
      } catch (err) {
        this.#o.log.warn({ file: this.#o.file, err }, `could not read ${this.#o.file} to compare it with the running settings`);
      }
    }, this.#o.interval_ms ?? CONFIG_WATCH_INTERVAL_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /**
   * Compare the file with the running configuration now and log what is new.
   * @returns the settings newly reported as needing a restart (for tests).
   */
  check(): string[] {
    const { file, log } = this.#o;
    let next: AgentConfig;
    try {
      next = loadConfig({ ...this.#o.sources, config_path: file }).config;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      if (this.#invalid !== err.message) {
        this.#invalid = err.message;
        log.warn({ file, error: err.message }, `${file} changed and the agent would not start with it: ${err.message}; the running agent keeps its settings`);
      }
      return [];
    }
    if (this.#invalid !== null) {
      this.#invalid = null;
      log.info({ file }, `${file} is valid again`);
    }
    const changed: string[] = [];
    const running = this.#o.running as Record<string, unknown>;
    const now = next as Record<string, unknown>;
    for (const key of new Set([...Object.keys(running), ...Object.keys(now)])) {
      if (NOT_WATCHED.has(key)) continue;
      const value = comparable(now[key]);
      if (isDeepStrictEqual(comparable(running[key]), value)) {
        if (this.#reported.delete(key)) log.info({ setting: key, file }, `setting ${key} in ${file} is back to the value the agent runs with`);
        continue;
      }
      const text = JSON.stringify(value ?? null);
      if (this.#reported.get(key) === text) continue;
      this.#reported.set(key, text);
      changed.push(key);
      log.warn({ setting: key, file }, `setting ${key} changed in ${file}; restart the agent to apply it`);
    }
    return changed;
  }
}
