import fs from 'node:fs';

/** USER_HZ: /proc stat times are in 1/100 s. */
const CLK_TCK = 100;

/**
 * A process's resident memory and CPU time so far, from /proc/<pid>/status (VmRSS) and
 * /proc/<pid>/stat (utime + stime, fields 14 and 15 of proc(5)).
 * @throws Error when the process is gone
 */
export function procStats(pid: number): { rss_mb: number; cpu_s: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss_kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { rss_mb: rss_kb / 1024, cpu_s: (Number(fields[11]) + Number(fields[12])) / CLK_TCK };
}
