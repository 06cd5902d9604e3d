import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Topology } from './topology.js';

const WORKER = fileURLToPath(new URL('./probe-worker.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where a probe lives: an absolute .ts module path and its export name (`pingProbe`). */
export interface ProbeRef {
  module: string;
  export: string;
}

/** A process inside one namespace that runs probes on request (see probe-worker.ts). */
export interface ProbeWorker {
  /**
   * Run `probe` with (target, params, policy) inside the namespace and resolve with its
   * ProbeOutcome as JSON. `abort_after_ms` aborts the probe's signal after that long.
   * Rejects if the probe threw or the worker died.
   */
  run(probe: ProbeRef, target: string, params: unknown, policy: { allow_private: boolean; allow_cidrs: string[] }, abort_after_ms?: number): Promise<any>;
}

/**
 * Start a probe worker in `node`'s namespace (node + tsx, cwd the repository root) and wait until
 * it is ready. The topology's cleanup() kills it.
 */
export async function startProbeWorker(topology: Topology, node: string): Promise<ProbeWorker> {
  const child = topology.spawn(node, [process.execPath, '--import', 'tsx', WORKER], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  const waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  let ready: () => void;
  let failed: (e: Error) => void;
  const readyP = new Promise<void>((resolve, reject) => { ready = resolve; failed = reject; });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let msg: { ready?: boolean; id?: number; outcome?: unknown; error?: string };
    try {
      msg = JSON.parse(line);
    } catch {
      return; // stray output
    }
    if (msg.ready) return ready();
    const w = waiting.get(msg.id!);
    if (!w) return;
    waiting.delete(msg.id!);
    if (msg.error !== undefined) w.reject(new Error(msg.error));
    else w.resolve(msg.outcome);
  });
  child.once('exit', (code, signal) => {
    const err = new Error(`probe worker in ${node} exited (${code ?? signal}): ${stderr}`);
    failed(err);
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  });
  await readyP;
  let next = 1;
  return {
    run(probe, target, params, policy, abort_after_ms) {
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.stdin!.write(`${JSON.stringify({ id, module: probe.module, export: probe.export, target, params, policy, abort_after_ms })}\n`);
      });
    },
  };
}
