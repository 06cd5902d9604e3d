/**
 * Where the slow requests of test/bench/hub-bench.ts went (`--trace-loop`): each of the slowest
 * requests of a timed phase beside what held an event loop meanwhile (GC pauses and loop stalls of
 * the instances, the simulated nodes and the client itself, hub-loop-trace.ts), and how long each
 * process's main thread waited for a core during the phase (Linux schedstat: runnable, not running).
 */
import { readFile } from 'node:fs/promises';
import { readLoopTraces, type LoopEvent } from './hub-loop-trace.js';
import type { TimedRequest } from './hub-load.js';

/** Main-thread CPU time and run-queue wait of `pid` so far, ms (Linux /proc schedstat), or NaN. */
export async function schedMs(pid: number): Promise<{ run_ms: number; wait_ms: number }> {
  try {
    const [run, wait] = (await readFile(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')).trim().split(' ').map(Number);
    return { run_ms: run! / 1e6, wait_ms: wait! / 1e6 };
  } catch {
    return { run_ms: Number.NaN, wait_ms: Number.NaN };
  }
}

/**
 * Meter the main threads of `pids` (label → pid) over a phase.
 * @returns a function giving, per label, the CPU used and the time spent waiting for a core, ms
 */
export async function schedMeter(pids: Record<string, number>): Promise<() => Promise<Record<string, { run_ms: number; wait_ms: number }>>> {
  const start = Object.fromEntries(await Promise.all(Object.entries(pids).map(async ([k, pid]) => [k, await schedMs(pid)] as const)));
  return async () => Object.fromEntries(await Promise.all(Object.entries(pids).map(async ([k, pid]) => {
    const now = await schedMs(pid);
    return [k, { run_ms: now.run_ms - start[k]!.run_ms, wait_ms: now.wait_ms - start[k]!.wait_ms }] as const;
  })));
}

/**
 * Lines describing the `top` slowest of `requests`: path, time, whether it was the first request
 * of its path in the phase (a cache miss), and every traced event (label: kind, ms) that overlapped it.
 */
export function slowRequestLines(requests: TimedRequest[], traces: Map<string, LoopEvent[]>, top = 6): string[] {
  const by_time = [...requests].sort((a, b) => a.at_ms - b.at_ms);
  const first = new Map<string, TimedRequest>();
  for (const r of by_time) if (!first.has(r.path)) first.set(r.path, r);
  const firstOf = new Set(first.values());
  const t0 = by_time[0]?.at_ms ?? 0;
  return [...requests].sort((a, b) => b.ms - a.ms).slice(0, top).map((r) => {
    const overlaps: string[] = [];
    for (const [label, events] of traces) {
      for (const e of events) {
        if (e.at_ms < r.at_ms + r.ms && e.at_ms + e.ms > r.at_ms) overlaps.push(`${label} ${e.kind}${e.what ? ` ${e.what}` : ''} ${e.ms.toFixed(1)} ms`);
      }
    }
    return `${r.ms.toFixed(1)} ms at +${(r.at_ms - t0).toFixed(0)} ms ${r.path}${firstOf.has(r) ? ' (first of its path)' : ''}: ${overlaps.join('; ') || 'nothing traced'}`;
  });
}

/** Main-thread CPU time and run-queue wait of each process over a phase, ms. */
export type PhaseWaits = Record<string, { run_ms: number; wait_ms: number }>;

/**
 * Report lines for timed phases: each process's CPU and wait for a core, then the slowest
 * requests beside what was traced meanwhile (`traces` from the preloaded processes, `client`
 * from this one). The preloaded processes write every 200 ms: call this half a second after the phases.
 */
export function traced(traces: Map<string, LoopEvent[]>, client: LoopEvent[], phases: Array<{ name: string; waits: PhaseWaits; requests: TimedRequest[] }>): string[] {
  const all = new Map([...traces, ['client', client]]);
  const waits = (w: PhaseWaits) => Object.entries(w).map(([k, v]) => `${k} ran ${v.run_ms.toFixed(0)} ms, waited for a core ${v.wait_ms.toFixed(0)} ms`).join('; ');
  return phases.flatMap((p) => [`${p.name}s: ${waits(p.waits)}`, ...slowRequestLines(p.requests, all, 8).map((l) => `  slow ${p.name}: ${l}`)]);
}

/**
 * Report lines for a restarted instance (`pid`): its main thread's CPU and wait for a core since
 * it started, and its GC pauses and loop stalls over 25 ms, in ms after the kill (`kill_at_ms`, epoch).
 */
export async function restartTrace(dir: string, pid: number, kill_at_ms: number, ready_ms: number, online_ms: number | null): Promise<string[]> {
  await new Promise((r) => setTimeout(r, 500));
  const events = [...(await readLoopTraces(dir))].find(([label]) => label.endsWith(`-${pid}`))?.[1] ?? [];
  const { run_ms, wait_ms } = await schedMs(pid);
  return [
    `restarted instance (ready ${ready_ms.toFixed(0)} ms, all online ${online_ms?.toFixed(0) ?? '—'} ms after the kill; its main thread ran ${run_ms.toFixed(0)} ms and waited for a core ${wait_ms.toFixed(0)} ms since it started), pauses over 25 ms:`,
    `  ${events.filter((e) => e.ms > 25 || e.kind === 'start').map((e) => `+${(e.at_ms - kill_at_ms).toFixed(0)} ${e.kind}${e.what ? ` ${e.what}` : ''} ${e.ms.toFixed(0)}`).join(', ')}`,
  ];
}
