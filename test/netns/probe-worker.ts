/**
 * A child process that runs probes inside a network namespace for tests (started by
 * probe-worker-client.ts through `ip netns exec`). Protocol: one JSON request per stdin line
 * `{ id, module, export, target, params, policy, abort_after_ms? }`, one JSON answer per stdout
 * line `{ id, outcome }` or `{ id, error }`. Requests run concurrently. Exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// pino is a node-agent dependency, not one of the test package's: load it from there.
const pino = createRequire(new URL('../../node-agent/package.json', import.meta.url))('pino') as (opts: { level: string }) => unknown;

interface Request {
  id: number;
  module: string;
  export: string;
  target: string;
  params: unknown;
  policy: { allow_private: boolean; allow_cidrs: string[] };
  abort_after_ms?: number;
}

interface ProbeLike {
  run(target: string, params: unknown, ctx: { signal: AbortSignal; policy: Request['policy']; log: unknown }): Promise<unknown>;
}

const log = pino({ level: 'silent' });
const write = (msg: unknown) => process.stdout.write(`${JSON.stringify(msg)}\n`);

async function handle(req: Request): Promise<void> {
  try {
    const mod = (await import(pathToFileURL(req.module).href)) as Record<string, ProbeLike>;
    const probe = mod[req.export];
    if (!probe) throw new Error(`${req.module} has no export ${req.export}`);
    const controller = new AbortController();
    const timer = req.abort_after_ms === undefined ? null : setTimeout(() => controller.abort(), req.abort_after_ms);
    const outcome = await probe.run(req.target, req.params, { signal: controller.signal, policy: req.policy, log });
    if (timer) clearTimeout(timer);
    write({ id: req.id, outcome });
  } catch (err) {
    write({ id: req.id, error: (err as Error).stack ?? String(err) });
  }
}

const pending = new Set<Promise<void>>();
createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  const job = handle(JSON.parse(line) as Request);
  pending.add(job);
  void job.finally(() => pending.delete(job));
}).on('close', () => {
  void Promise.all(pending).then(() => process.exit(0));
});
write({ ready: true });
