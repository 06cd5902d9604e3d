/**
 * Where a process's CPU went, from a V8 CPU profile (`node --cpu-prof`, a `.cpuprofile` JSON file):
 * the functions with the most self time, and the same time summed by package or source file.
 *
 *   npx tsx test/bench/lib/cpu-profile-top.ts FILE.cpuprofile [--top 30] [--skip-s 10]
 *   (--skip-s: leave out the first seconds of the profile, e.g. the process's start-up)
 *
 * Self time of a node = its sample count × the mean sample interval (the profile's
 * `(endTime - startTime) / samples.length`, µs). `(idle)` is time the thread slept in the event
 * loop; `(program)` is native work V8 does not attribute to a JavaScript function (libuv, the
 * SQLite and socket calls of native addons under their JavaScript caller are attributed to it).
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** µs since the previous sample (the first: since startTime). */
  timeDeltas: number[];
}

/** A package (`better-sqlite3`, `pino`) or our source file (`node-agent/src/...`), or a V8 pseudo-frame. */
function where(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pnpm) return pnpm[1]!;
  const ours = /\/((?:node-agent|shared-protocol|control-plane)\/src\/.*)$/.exec(url);
  if (ours) return ours[1]!;
  return url.startsWith('node:') ? url : url.replace(/^file:\/\//, '');
}

/**
 * Self time per function and per place, and total time (self plus callees, each function counted
 * once per sample however often it recurs) per function, ms, largest first; `total_ms` is the
 * whole profile.
 */
export function profileTop(profile: CpuProfile, skip_s = 0): { total_ms: number; functions: Array<[string, number]>; places: Array<[string, number]>; inclusive: Array<[string, number]> } {
  const sample_ms = (profile.endTime - profile.startTime) / 1000 / Math.max(profile.samples.length, 1);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const count = new Map<number, number>();
  let t_us = 0;
  let kept = 0;
  profile.samples.forEach((id, i) => {
    t_us += profile.timeDeltas[i] ?? 0;
    if (t_us < skip_s * 1e6) return;
    kept++;
    count.set(id, (count.get(id) ?? 0) + 1);
  });
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const nameOf = (f: ProfileNode['callFrame']) => `${f.functionName || '(anonymous)'} ${where(f.url, f.functionName)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
  for (const [id, n] of count) {
    const f = byId.get(id)!.callFrame;
    add(functions, nameOf(f), n * sample_ms);
    add(places, where(f.url, f.functionName), n * sample_ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(nameOf(byId.get(at)!.callFrame));
    for (const name of seen) add(inclusive, name, n * sample_ms);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { total_ms: kept * sample_ms, functions: sorted(functions), places: sorted(places), inclusive: sorted(inclusive) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' }, 'skip-s': { type: 'string', default: '0' } } });
  const file = positionals[0];
  if (!file) throw new Error('usage: cpu-profile-top.ts FILE.cpuprofile [--top 30]');
  const top = profileTop(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, Number(values['skip-s']));
  const n = Number(values.top);
  const busy = top.total_ms - (top.places.find(([p]) => p === '(idle)')?.[1] ?? 0);
  const line = ([name, ms]: [string, number]) => `${ms.toFixed(0).padStart(8)} ms ${((ms / busy) * 100).toFixed(1).padStart(5)} %  ${name}`;
  console.log(`profile: ${(top.total_ms / 1000).toFixed(1)} s, busy (not idle) ${(busy / 1000).toFixed(1)} s; % of busy`);
  console.log('\nby package / source file (self time):');
  for (const x of top.places.slice(0, n)) console.log(line(x));
  console.log('\nby function (self time):');
  for (const x of top.functions.slice(0, n)) console.log(line(x));
  console.log('\nby function (total: self and callees; our sources only):');
  for (const x of top.inclusive.filter(([name]) => / (node-agent|shared-protocol)\/src\//.test(name)).slice(0, n)) console.log(line(x));
}
