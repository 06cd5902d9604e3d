import { readFile } from 'node:fs/promises';
import os from 'node:os';

/** What the figures were measured on; load averages are sampled at the start and at the end of a run. */
export interface MachineInfo {
  nproc: number;
  cpu_model: string;
  memory_total_gib: number;
  memory_free_gib: number;
  kernel: string;
  node_version: string;
  /** 1, 5 and 15 minute load averages (os.loadavg()). */
  load_average: [number, number, number];
}

/** The first "model name" of /proc/cpuinfo, else os.cpus()'s model. */
async function cpuModel(): Promise<string> {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(await readFile('/proc/cpuinfo', 'utf8'));
    if (m) return m[1]!.trim();
  } catch { /* not Linux */ }
  return os.cpus()[0]?.model ?? 'unknown';
}

/** Describe this machine now (nproc, CPU model, memory in GiB, kernel, Node.js version, load average). */
export async function describeMachine(): Promise<MachineInfo> {
  const gib = (bytes: number) => bytes / 1024 ** 3;
  const [a, b, c] = os.loadavg();
  return {
    nproc: os.availableParallelism(),
    cpu_model: await cpuModel(),
    memory_total_gib: gib(os.totalmem()),
    memory_free_gib: gib(os.freemem()),
    kernel: `${os.type()} ${os.release()} (${os.arch()})`,
    node_version: process.version,
    load_average: [a!, b!, c!],
  };
}

/** Load averages as `1.23 0.98 0.75` (1, 5, 15 min). */
export function loadText(load: [number, number, number]): string {
  return load.map((x) => x.toFixed(2)).join(' ');
}

/** Markdown table of the machine: `start` as described at the beginning, `end_load` sampled at the end. */
export function machineMarkdown(start: MachineInfo, end_load: [number, number, number]): string {
  return [
    '| machine | |',
    '|---|---|',
    `| nproc | ${start.nproc} |`,
    `| CPU | ${start.cpu_model} |`,
    `| memory | ${start.memory_total_gib.toFixed(1)} GiB total, ${start.memory_free_gib.toFixed(1)} GiB free at start |`,
    `| kernel | ${start.kernel} |`,
    `| Node.js | ${start.node_version} |`,
    `| load average (1/5/15 min) at start | ${loadText(start.load_average)} |`,
    `| load average (1/5/15 min) at end | ${loadText(end_load)} |`,
  ].join('\n');
}
