/**
 * Run `once` from `concurrency` loops for `seconds` on this process (one core) and count
 * successes per second; RSS is sampled every 100 ms. Used by the probe-engine benchmarks for
 * "N concurrent tasks" throughput figures.
 * @returns `{ per_s, failed, peak_rss_mib }`
 */
export async function throughput(seconds: number, concurrency: number, once: () => Promise<boolean>): Promise<{ per_s: number; failed: number; peak_rss_mib: number }> {
  let done = 0;
  let failed = 0;
  let peak_rss = 0;
  const sampler = setInterval(() => { peak_rss = Math.max(peak_rss, process.memoryUsage().rss); }, 100);
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      if (await once()) done++;
      else failed++;
    }
  }));
  clearInterval(sampler);
  const elapsed_s = (performance.now() - t0) / 1000;
  return { per_s: done / elapsed_s, failed, peak_rss_mib: Math.max(peak_rss, process.memoryUsage().rss) / 1048576 };
}
