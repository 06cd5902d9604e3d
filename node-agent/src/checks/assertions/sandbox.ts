import { createRequire } from 'node:module';
import { jsonPathFault, REGEX_PROGRAM_MAX } from '@vantage/shared-protocol';
import { query } from 'jsonpath-rfc9535';
import parseJsonPath from 'jsonpath-rfc9535/parser';
import { createWorkerPool, type WorkerPool } from './worker-pool.js';
import { WORKER_SOURCE } from './worker-source.js';

/*
 * Runs user-supplied patterns (RE2 regular expressions, RFC 9535 JSONPath) on response text
 * without letting them stall the node (docs/api/checks.md "Patterns"). What they cost is not a
 * function of the input's size: RE2 falls back from its DFA to an NFA costing program size ×
 * input length steps (seconds on 1 MiB), compiling a pattern costs up to its program size, and
 * each descendant segment of a JSONPath multiplies the work by the document's size (`$..*..*` is
 * quadratic in its nodes, `$..*..*..*` cubic) while the values it selects can outgrow memory.
 * So the main thread runs only what is bounded by construction: a JSONPath made of name and
 * index selectors alone (one step per segment) on a document up to INLINE_JSON_MAX_CHARS.
 * Everything else runs in the pattern worker (worker-pool.ts) under a deadline and a heap limit,
 * and what it selects comes back capped in count and size.
 */

/** A JSON document up to this many characters is parsed on the main thread when every path is cheap. */
export const INLINE_JSON_MAX_CHARS = 64 * 1024;
/** Default deadline of one pattern job (one JSONPath of a document) in the worker, ms. */
export const PATTERN_DEADLINE_MS = 2000;
/** Default heap limit of the pattern worker, MB (old generation). */
export const WORKER_HEAP_MAX_MB = 64;
/** Most values one JSONPath may select; past it the path fails (narrow it). */
export const JSON_SELECTED_VALUES_MAX = 10_000;
/** Most characters of JSON the values one JSONPath selects may take; past it the path fails. */
export const JSON_SELECTION_MAX_CHARS = 256 * 1024;
/** Longest match text reported. */
export const MATCH_TEXT_MAX_CHARS = 200;
/** The worker locates a match (for its text) only when program size × input length is at most this. */
export const REGEX_LOCATE_BUDGET = 16_000_000;

/** A regex outcome: `match` is the matched text (null when not located: too costly), or an error. */
export type RegexOutcome = { ok: true; matched: boolean; match: string | null } | { ok: false; error: string };
/** JSONPath outcome per path: the selected values, or why there are none. */
export type JsonPathOutcome = { ok: true; values: unknown[] } | { ok: false; error: string };
/** The document could not be read as JSON (`error`), or the per-path outcomes. */
export type JsonPathsOutcome = { ok: true; results: JsonPathOutcome[] } | { ok: false; error: string };

export interface JsonPathsOptions {
  /** Select at most the first value of each path (a presence test: never fails on the value caps). */
  first_only?: boolean;
}

export interface PatternSandbox {
  /** Search `input` for `pattern` (RE2 syntax, unanchored), in the worker. Never rejects. */
  regex(pattern: string, input: string): Promise<RegexOutcome>;
  /**
   * Parse `text` as JSON once and select every path (RFC 9535). A path that meets a bound
   * (deadline, heap, JSON_SELECTED_VALUES_MAX, JSON_SELECTION_MAX_CHARS) fails alone, its error
   * naming the bound. Never rejects.
   */
  jsonPaths(text: string, paths: string[], options?: JsonPathsOptions): Promise<JsonPathsOutcome>;
  /** Stop the worker (tests; the worker does not keep the process alive). */
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** Deadline of one job in the worker, ms (default PATTERN_DEADLINE_MS). */
  deadline_ms?: number;
  /** Heap limit of the worker, MB (default WORKER_HEAP_MAX_MB). */
  heap_max_mb?: number;
  /** Largest document parsed inline (default INLINE_JSON_MAX_CHARS; tests force the worker with 0). */
  inline_json_max_chars?: number;
}

/** Paths seen lately, judged once (a monitor repeats them every round). */
const CACHE_MAX = 512;
const pathFaults = new Map<string, string | null>();
const cheapPaths = new Map<string, boolean>();

function remember<V>(cache: Map<string, V>, key: string, make: () => V): V {
  if (cache.has(key)) return cache.get(key) as V;
  const value = make();
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
  return value;
}

/**
 * Whether `path` (already free of faults) selects at most one value in one step per segment: only
 * child segments, each a single name or index selector (RFC 9535 2.3.5.1 "singular query").
 */
export function isSingularPath(path: string): boolean {
  return remember(cheapPaths, path, () => parseJsonPath(path).segments.every((s) => {
    if (s.type !== 'ChildSegment') return false;
    if (s.node.type === 'MemberNameShorthand') return true;
    return s.node.type === 'BracketedSelection' && s.node.selectors.length === 1
      && (s.node.selectors[0]!.type === 'NameSelector' || s.node.selectors[0]!.type === 'IndexSelector');
  }));
}

function jsonPathsInline(text: string, paths: string[]): JsonPathsOutcome {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `body is not JSON (${(err as Error).message.slice(0, 200)})` };
  }
  return { ok: true, results: paths.map((path) => ({ ok: true, values: query(doc as never, path) })) };
}

function workerPaths(): { re2js: string; jsonpath: string } | null {
  try {
    const require = createRequire(import.meta.url);
    return { re2js: require.resolve('re2js'), jsonpath: require.resolve('jsonpath-rfc9535') };
  } catch {
    return null; // the packages are not on disk: only what is bounded inline can run
  }
}

type Selected = { ok: true; json: string } | { ok: false; error: string };
type JsonStep = { parsed: true } | { index: number; result: Selected };

/** Run `paths` over `text` in the worker; a path past a bound fails alone, the rest go on. */
function jsonPathsInWorker(pool: WorkerPool, text: string, paths: string[], first_only: boolean): Promise<JsonPathsOutcome> {
  return new Promise((resolve) => {
    const results: JsonPathOutcome[] = [];
    let parsed = false;
    const job = () => ({ kind: 'json', text, paths, from: results.length, first_only });
    pool.run({
      job: job(),
      step(m) {
        const s = m as JsonStep;
        if ('parsed' in s) parsed = true;
        else results.push(s.result.ok ? { ok: true, values: JSON.parse(s.result.json) as unknown[] } : s.result);
      },
      done(m) {
        const d = m as { ok: true } | { ok: false; error: string };
        resolve(d.ok ? { ok: true, results } : d);
      },
      fail(error) {
        if (!parsed && results.length === 0) {
          resolve({ ok: false, error: `could not be read: ${error}` });
          return null;
        }
        // Unparsed again after a restart: the document itself met the bound, so do all that remain.
        do results.push({ ok: false, error }); while (!parsed && results.length < paths.length);
        parsed = false;
        if (results.length < paths.length) return job();
        resolve({ ok: true, results });
        return null;
      },
    });
  });
}

/**
 * Create the sandbox: cheap JSONPath queries on small documents inline, everything else in one
 * worker thread (worker-pool.ts) whose jobs run in order, each with `deadline_ms` from when it
 * starts and the worker's heap limited to `heap_max_mb`.
 */
export function createPatternSandbox(options: SandboxOptions = {}): PatternSandbox {
  const deadline_ms = options.deadline_ms ?? PATTERN_DEADLINE_MS;
  const heap_max_mb = options.heap_max_mb ?? WORKER_HEAP_MAX_MB;
  const jsonInlineMax = options.inline_json_max_chars ?? INLINE_JSON_MAX_CHARS;
  const paths = workerPaths();
  const pool = paths && createWorkerPool({
    source: WORKER_SOURCE, name: 'the pattern worker', deadline_ms, heap_max_mb,
    hints: { deadline: 'simplify the pattern or reduce the body', memory: 'narrow the pattern or reduce the body' },
    worker_data: {
      ...paths, regex_program_max: REGEX_PROGRAM_MAX, regex_locate_budget: REGEX_LOCATE_BUDGET, match_text_max_chars: MATCH_TEXT_MAX_CHARS,
      values_max: JSON_SELECTED_VALUES_MAX, selection_max_chars: JSON_SELECTION_MAX_CHARS,
    },
  });
  const unavailable = 'cannot run on this node: the pattern worker is not available';

  return {
    regex(pattern, input) {
      if (!pool) return Promise.resolve({ ok: false, error: unavailable });
      return new Promise((resolve) => pool.run({
        job: { kind: 'regex', pattern, input },
        step() {},
        done: (m) => resolve(m as RegexOutcome),
        fail(error) {
          resolve({ ok: false, error });
          return null;
        },
      }));
    },
    async jsonPaths(text, list, opts = {}) {
      // Refused paths (syntax, match()/search()) never reach the library, whoever sent them.
      const faults = list.map((path) => remember(pathFaults, path, () => jsonPathFault(path)));
      const usable = list.filter((_, i) => faults[i] === null);
      const inline = text.length <= jsonInlineMax && usable.every(isSingularPath);
      const got = inline ? jsonPathsInline(text, usable)
        : pool ? await jsonPathsInWorker(pool, text, usable, opts.first_only ?? false)
          : { ok: false as const, error: unavailable };
      if (!got.ok) return got;
      let next = 0;
      return { ok: true, results: faults.map((fault) => (fault ? { ok: false, error: fault } : got.results[next++]!)) };
    },
    close: async () => pool?.close(),
  };
}
