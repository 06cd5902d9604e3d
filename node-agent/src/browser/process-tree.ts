import { readFileSync, readdirSync } from 'node:fs';

/*
 * The browser's processes, read from /proc (Linux): Playwright does not expose the pid of a
 * browser it launched, so the pool tags its browser with a marker argument and finds it here.
 */

interface Proc { pid: number; ppid: number }

function procs(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses; the fields after the last ')' do not.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(name), ppid: Number(rest[1]) });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The pid of the process whose command line holds `marker` as an argument, or null. */
export function findPidByArgument(marker: string): number | null {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (args.includes(marker)) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

/** `root` and all its descendants' pids. */
export function processTree(root: number): number[] {
  const all = procs();
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const p of all) if (p.ppid === tree[i]) tree.push(p.pid);
  }
  return tree;
}

/**
 * Memory of `root` and its descendants, bytes: the sum of their proportional set sizes (Pss from
 * /proc/<pid>/smaps_rollup: a shared page counts once in total, not once per process, which
 * matters for Chromium's many processes mapping the same libraries); VmRSS where Pss is unreadable.
 */
export function treeRssBytes(root: number): number {
  let total = 0;
  for (const pid of processTree(root)) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (m) { total += Number(m[1]) * 1024; continue; }
    } catch {
      // no smaps_rollup (older kernel) or gone meanwhile
    }
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** SIGKILL `root` and its descendants (a hung browser ignores a polite close). */
export function killTree(root: number): void {
  for (const pid of processTree(root).reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
