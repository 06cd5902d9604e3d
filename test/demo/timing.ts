import { readFileSync } from 'node:fs';

/**
 * The demo's start-up figures: seconds from the start of this process to each milestone (the
 * control plane answering, the nodes online, the first probe table printed) and the control
 * plane's peak resident memory (Linux /proc/<pid>/status VmHWM: the whole process, the embedded
 * PGlite included). test/bench/startup-bench.ts reads the line {@link StartupTiming.line} prints.
 */
export class StartupTiming {
  readonly #marks: Array<[string, number]> = [];

  /** Record `what` as reached now (performance.now(): ms since this process started). */
  mark(what: string): void {
    this.#marks.push([what, performance.now()]);
  }

  /** Seconds from process start to `what`, or null when it was not marked. */
  seconds(what: string): number | null {
    const m = this.#marks.find(([w]) => w === what);
    return m ? m[1] / 1000 : null;
  }

  /**
   * One line, e.g. `start-up: control plane 4.1 s · 3 nodes online 6.0 s · first table 7.2 s ·
   * control plane peak memory 212 MiB`; the memory part only where /proc tells it.
   */
  line(control_plane_pid: number | undefined): string {
    const parts = this.#marks.map(([what, at_ms]) => `${what} ${(at_ms / 1000).toFixed(1)} s`);
    const peak = control_plane_pid === undefined ? null : peakRssMiB(control_plane_pid);
    if (peak !== null) parts.push(`control plane peak memory ${peak} MiB`);
    return `start-up: ${parts.join(' · ')}`;
  }
}

/** Peak resident set size of process `pid` so far (VmHWM), MiB rounded; null where /proc has no such entry. */
export function peakRssMiB(pid: number): number | null {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  } catch {
    return null;
  }
}
