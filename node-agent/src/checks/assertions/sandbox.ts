import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { compileRegex, jsonPathFault } from '@vantage/shared-protocol';
import { query } from 'jsonpath-rfc9535';

/*
 * Runs user-supplied patterns (RE2 regular expressions, RFC 9535 JSONPath) on response text
 * without letting them stall the node. RE2 is linear in the input, but its fallback from DFA to
 * NFA costs about program size × input length steps, seconds for a 1 MiB body. So a match whose
 * cost bound is small runs inline; a larger one runs in one worker thread under a deadline, and a
 * worker past its deadline is terminated (the assertion fails, the event loop never waited).
 */

/** Inline when program size × input characters is at most this (about 0.1 s in the worst case). */
export const INLINE_REGEX_BUDGET = 4_000_000;
/** JSON documents up to this many characters are parsed and queried inline. */
export const INLINE_JSON_MAX_CHARS = 64 * 1024;
/** Default deadline of one pattern job in the worker, ms. */
export const PATTERN_DEADLINE_MS = 2000;
/** Longest match text reported. */
export const MATCH_TEXT_MAX_CHARS = 200;

/** A regex outcome: `match` is the matched text (null when not located: too costly), or an error. */
export type RegexOutcome = { ok: true; matched: boolean; match: string | null } | { ok: false; error: string };
/** JSONPath outcome per path: the selected values, or why there are none. */
export type JsonPathOutcome = { ok: true; values: unknown[] } | { ok: false; error: string };
/** The document could not be read as JSON (`error`), or the per-path outcomes. */
export type JsonPathsOutcome = { ok: true; results: JsonPathOutcome[] } | { ok: false; error: string };

export interface PatternSandbox {
  /** Search `input` for `pattern` (RE2 syntax, unanchored). Never rejects. */
  regex(pattern: string, input: string): Promise<RegexOutcome>;
  /** Parse `text` as JSON once and select every path (RFC 9535). Never rejects. */
  jsonPaths(text: string, paths: string[]): Promise<JsonPathsOutcome>;
  /** Stop the worker (tests; the worker does not keep the process alive). */
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** Deadline of one job in the worker, ms (default PATTERN_DEADLINE_MS). */
  deadline_ms?: number;
  /** Inline budgets (tests force the worker with 0). */
  inline_regex_budget?: number;
  inline_json_max_chars?: number;
}

/** Patterns and paths seen lately, compiled or judged once (a monitor repeats them every round). */
const CACHE_MAX = 512;
const compiled = new Map<string, ReturnType<typeof compileRegex> | Error>();
const pathFaults = new Map<string, string | null>();

function remember<V>(cache: Map<string, V>, key: string, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined && !cache.has(key)) {
    value = make();
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(key, value);
  }
  return value as V;
}

function compiledRegex(pattern: string): ReturnType<typeof compileRegex> | Error {
  return remember(compiled, pattern, () => {
    try {
      return compileRegex(pattern);
    } catch (err) {
      return err as Error;
    }
  });
}

function regexInline(pattern: string, input: string, locate: boolean): RegexOutcome {
  const re = compiledRegex(pattern);
  if (re instanceof Error) return { ok: false, error: re.message };
  if (!re.test(input)) return { ok: true, matched: false, match: null };
  const found = locate ? re.exec(input) : null;
  return { ok: true, matched: true, match: found ? String(found[0]).slice(0, MATCH_TEXT_MAX_CHARS) : null };
}

function jsonPathsInline(text: string, paths: string[]): JsonPathsOutcome {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `body is not JSON (${(err as Error).message.slice(0, 200)})` };
  }
  return { ok: true, results: paths.map((path) => {
    try {
      return { ok: true, values: query(doc as never, path) };
    } catch (err) {
      return { ok: false, error: `not a usable JSONPath: ${(err as Error).message.slice(0, 200)}` };
    }
  }) };
}

/** Program size of `pattern`, or null when it does not compile (the inline path reports the error). */
function programSize(pattern: string): number | null {
  const re = compiledRegex(pattern);
  return re instanceof Error ? null : re.programSize();
}

// The worker: plain CommonJS so it loads without the TypeScript loader; the two libraries are
// required by the paths this module resolved (the same copies the main thread uses).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.re2js);
const { query } = require(workerData.jsonpath);
parentPort.postMessage({ ready: true });
parentPort.on('message', (job) => {
  let reply;
  try {
    if (job.kind === 'regex') {
      const re = RE2JS.compile(job.pattern);
      const matched = re.test(job.input);
      const found = matched && job.locate ? re.exec(job.input) : null;
      reply = { ok: true, matched, match: found ? String(found[0]).slice(0, ${MATCH_TEXT_MAX_CHARS}) : null };
    } else {
      let doc;
      try { doc = JSON.parse(job.text); } catch (err) { reply = { ok: false, error: 'body is not JSON (' + String(err.message).slice(0, 200) + ')' }; }
      if (!reply) reply = { ok: true, results: job.paths.map((path) => {
        try { return { ok: true, values: query(doc, path) }; } catch (err) { return { ok: false, error: 'not a usable JSONPath: ' + String(err.message).slice(0, 200) }; }
      }) };
    }
  } catch (err) {
    reply = { ok: false, error: String(err && err.message || err).slice(0, 300) };
  }
  parentPort.postMessage({ id: job.id, reply });
});
`;

interface Pending {
  id: number;
  job: Record<string, unknown>;
  resolve: (reply: unknown) => void;
  /** When this job became the one the worker is running (performance.now()), null while queued behind another. */
  head_since: number | null;
}

function workerPaths(): { re2js: string; jsonpath: string } | null {
  try {
    const require = createRequire(import.meta.url);
    return { re2js: require.resolve('re2js'), jsonpath: require.resolve('jsonpath-rfc9535') };
  } catch {
    return null; // a bundle without the packages on disk: everything runs inline (see runWorker)
  }
}

/**
 * Create the sandbox. Jobs go to the worker in order and run one at a time; the one running is
 * given `deadline_ms` from when it started, and past that the worker is terminated, that job
 * answers a timeout error, and the jobs queued behind it go to a fresh worker.
 */
export function createPatternSandbox(options: SandboxOptions = {}): PatternSandbox {
  const deadline_ms = options.deadline_ms ?? PATTERN_DEADLINE_MS;
  const regexBudget = options.inline_regex_budget ?? INLINE_REGEX_BUDGET;
  const jsonInlineMax = options.inline_json_max_chars ?? INLINE_JSON_MAX_CHARS;
  const paths = workerPaths();
  let worker: Worker | null = null;
  let nextId = 1;
  let timer: NodeJS.Timeout | null = null;
  const pending: Pending[] = [];

  /** The current worker has loaded its libraries (its start-up, ~0.1-0.3 s, is not counted against a job). */
  let ready = false;
  const armHead = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const head = pending[0];
    if (!head || !ready) return;
    head.head_since ??= performance.now();
    timer = setTimeout(onDeadline, Math.max(0, head.head_since + deadline_ms - performance.now()));
  };
  // The worker keeps the process alive only while it has work.
  const holdWhileBusy = () => (pending.length > 0 ? worker?.ref() : worker?.unref());

  const spawn = (): Worker => {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: paths });
    ready = false;
    w.unref();
    w.on('message', (m: { id: number; reply: unknown } | { ready: true }) => {
      if ('ready' in m) {
        if (worker === w) {
          ready = true;
          armHead();
        }
        return;
      }
      const i = pending.findIndex((p) => p.id === m.id);
      if (i < 0) return;
      const [done] = pending.splice(i, 1);
      done!.resolve(m.reply);
      armHead();
      holdWhileBusy();
    });
    w.on('error', (err) => restart(`pattern worker failed: ${err.message}`));
    return w;
  };

  /** Fail the running job with `error`, replace the worker, and resend what was queued behind. */
  const restart = (error: string) => {
    const old = worker;
    worker = null;
    void old?.terminate();
    const head = pending.shift();
    head?.resolve({ ok: false, error });
    if (pending.length > 0) {
      worker = spawn();
      for (const p of pending) worker.postMessage(p.job);
    }
    armHead();
    holdWhileBusy();
  };

  function onDeadline() {
    timer = null;
    restart(`took longer than ${deadline_ms} ms, stopped (simplify the pattern or reduce the body)`);
  }

  function runWorker<T>(job: Record<string, unknown>): Promise<T> {
    return new Promise<T>((resolve) => {
      const entry: Pending = { id: nextId++, job: { ...job }, resolve: resolve as (r: unknown) => void, head_since: null };
      entry.job.id = entry.id;
      pending.push(entry);
      worker ??= spawn();
      worker.postMessage(entry.job);
      holdWhileBusy();
      if (pending.length === 1) armHead();
    });
  }

  return {
    async regex(pattern, input) {
      const size = programSize(pattern);
      const cost = size === null ? 0 : size * input.length;
      if (size === null || cost <= regexBudget) return regexInline(pattern, input, true);
      if (!paths) return { ok: false, error: `too costly to run here (${size} instructions × ${input.length} characters)` };
      // Locating the match needs the slower NFA; only when that too stays within the inline budget.
      return runWorker<RegexOutcome>({ kind: 'regex', pattern, input, locate: cost <= regexBudget * 4 });
    },
    async jsonPaths(text, list) {
      // Refused paths (syntax, match()/search()) never reach the library, whoever sent them.
      const faults = list.map((path) => remember(pathFaults, path, () => jsonPathFault(path)));
      const usable = list.filter((_, i) => faults[i] === null);
      const got = usable.length === 0 ? jsonPathsInline(text, [])
        : text.length <= jsonInlineMax || !paths ? jsonPathsInline(text, usable)
          : await runWorker<JsonPathsOutcome>({ kind: 'json', text, paths: usable });
      if (!got.ok) return got;
      let next = 0;
      return { ok: true, results: faults.map((fault) => (fault ? { ok: false, error: fault } : got.results[next++]!)) };
    },
    async close() {
      if (timer) clearTimeout(timer);
      const w = worker;
      worker = null;
      for (const p of pending.splice(0)) p.resolve({ ok: false, error: 'sandbox closed' });
      await w?.terminate();
    },
  };
}
