/** Peak memory while browser checks run, bytes: the node process's RSS, the browser's (summed PSS), and both together. */
export interface MemoryPeaks { node: number; browser: number; total: number }

/**
 * Sample the node process's RSS and `pool.rssBytes()` (the browser's processes, summed PSS) every
 * `every_ms` until the returned function is called. @returns a function that stops and gives the peaks
 */
export function sampleMemory(pool: { rssBytes(): number }, every_ms = 100): () => MemoryPeaks {
  const peaks: MemoryPeaks = { node: 0, browser: 0, total: 0 };
  const sample = () => {
    const node = process.memoryUsage().rss;
    const browser = pool.rssBytes();
    peaks.node = Math.max(peaks.node, node);
    peaks.browser = Math.max(peaks.browser, browser);
    peaks.total = Math.max(peaks.total, node + browser);
  };
  const timer = setInterval(sample, every_ms);
  return () => {
    clearInterval(timer);
    sample();
    return { ...peaks };
  };
}
