/**
 * What held a process's event loop, for test/bench/hub-bench.ts `--trace-loop`: garbage-collection
 * pauses (perf_hooks `gc` entries) and event-loop stalls (a 5 ms timer that fired more than
 * `STALL_MS` late), each with its wall-clock start, so slow requests can be matched with them.
 *
 * Used in two ways: `startLoopTrace()` in the benchmark's own process (the API client), and as a
 * preload (`node --import <this file>`) in the instances and the simulated nodes, which it enables
 * when `BENCH_LOOP_TRACE_DIR` is set: events are appended to `<dir>/<BENCH_LOOP_TRACE_LABEL>-<pid>.jsonl`
 * every 200 ms (one JSON object per line). A timer of its own keeps the process alive: it is unref'd.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';

/** A timer firing this late counts as a stall, ms. */
const STALL_MS = 15;
const TICK_MS = 5;

/** One event: `gc` (a pause: kind minor/major/incremental/weakcb), `stall` (the loop was held), `start` (tracing began). */
export interface LoopEvent { kind: 'gc' | 'stall' | 'start'; at_ms: number; ms: number; what: string }

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/**
 * Start recording this process's GC pauses and loop stalls.
 * @returns `events()`: what was recorded so far (and, with `drain`, forgotten); `stop()`
 */
export function startLoopTrace(): { events(drain?: boolean): LoopEvent[]; stop(): void } {
  let events: LoopEvent[] = [{ kind: 'start', at_ms: Date.now(), ms: 0, what: '' }];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
      events.push({ kind: 'gc', at_ms: performance.timeOrigin + e.startTime, ms: e.duration, what: GC_KINDS[kind] ?? String(kind) });
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late > STALL_MS) events.push({ kind: 'stall', at_ms: performance.timeOrigin + last + TICK_MS, ms: late, what: '' });
    last = now;
  }, TICK_MS);
  timer.unref();
  return {
    events(drain = false) {
      const out = events;
      if (drain) events = [];
      return out;
    },
    stop() {
      clearInterval(timer);
      obs.disconnect();
    },
  };
}

/** Read the events the preloaded processes wrote to `dir` (label → events). */
export async function readLoopTraces(dir: string): Promise<Map<string, LoopEvent[]>> {
  const { readdir, readFile } = await import('node:fs/promises');
  const out = new Map<string, LoopEvent[]>();
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    if (!f.endsWith('.jsonl')) continue;
    const text = await readFile(join(dir, f), 'utf8');
    out.set(f.replace(/\.jsonl$/, ''), text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as LoopEvent));
  }
  return out;
}

const dir = process.env.BENCH_LOOP_TRACE_DIR;
if (dir && process.env.BENCH_LOOP_TRACE_LABEL) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.env.BENCH_LOOP_TRACE_LABEL}-${process.pid}.jsonl`);
  const trace = startLoopTrace();
  const flush = () => {
    const events = trace.events(true);
    if (events.length) appendFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  };
  setInterval(flush, 200).unref();
  process.once('exit', flush);
}
