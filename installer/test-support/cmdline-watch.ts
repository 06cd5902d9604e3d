import { readdirSync, readFileSync } from 'node:fs';

/** What watchCommandLines saw. */
export interface CommandLineWatch {
  /** Stop sampling. @returns each distinct command line that held the secret (NULs shown as spaces) */
  stop(): string[];
  /** How many samples of the process table were taken so far. */
  samples(): number;
}

/** The process group of `pid` (field 5 of /proc/<pid>/stat, after the parenthesised name), or null. */
function processGroup(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return null;
  }
}

/**
 * Sample every process's command line (`/proc/<pid>/cmdline`) every `every_ms` until stop(), and
 * keep those holding `secret` (a token, or a prefix like `ent_`); with `process_group`, only
 * processes of that group are looked at. Arguments are readable by every user of a host (ps), so
 * a secret must never be one. Sampling can miss a process that lives shorter than `every_ms`; one
 * that lives as long as an install step (a node or sh process) is seen.
 */
export function watchCommandLines(secret: string, opts: { every_ms?: number; process_group?: number } = {}): CommandLineWatch {
  const every_ms = opts.every_ms ?? 20;
  const hits = new Set<string>();
  let count = 0;
  const sample = () => {
    count++;
    let pids: string[];
    try {
      pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
    } catch {
      return;
    }
    for (const pid of pids) {
      let cmdline: string;
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      } catch {
        continue; // exited meanwhile
      }
      if (!cmdline.includes(secret)) continue;
      if (opts.process_group !== undefined && processGroup(pid) !== opts.process_group) continue;
      hits.add(cmdline.replace(/\0/g, ' ').trim());
    }
  };
  const timer = setInterval(sample, every_ms);
  sample();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return [...hits];
    },
    samples: () => count,
  };
}
