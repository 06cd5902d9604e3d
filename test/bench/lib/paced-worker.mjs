// The paced client's worker thread (paced-client.ts says what it measures): plain JavaScript, as a
// worker does not inherit the main thread's tsx loader on Node 20. Posts every request's latency
// (ms, from its due time), the failures and the rate achieved; paced-client.ts turns them into figures.
import { createRequire } from 'node:module';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

async function run(job) {
  // undici is a dependency of the control plane (the bench scripts borrow it, as they do autocannon).
  const { Pool } = createRequire(new URL('../../../control-plane/package.json', import.meta.url))('undici');
  const pool = new Pool(job.url, { connections: job.connections, pipelining: 1 });
  const total = Math.round(job.rate_per_s * job.duration_s);
  const latencies = new Float64Array(total);
  let sent = 0;
  let done = 0;
  let failed = 0;
  const start = performance.now();
  const interval_ms = 1000 / job.rate_per_s;
  await new Promise((resolve) => {
    const one = (k, due) => {
      pool.request({ method: 'GET', path: job.paths[k % job.paths.length] }).then(async (res) => {
        await res.body.dump();
        if (res.statusCode < 200 || res.statusCode > 299) failed++;
      }, () => { failed++; }).finally(() => {
        latencies[k] = performance.now() - due;
        if (++done === total) resolve();
      });
    };
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + sent * interval_ms <= now) {
        one(sent, start + sent * interval_ms);
        sent++;
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval_ms - performance.now()));
    };
    tick();
  });
  const elapsed_s = (performance.now() - start) / 1000;
  await pool.close();
  return { latencies_ms: Array.from(latencies), failed, achieved_per_s: total / elapsed_s };
}

if (!isMainThread && workerData) {
  void run(workerData).then((r) => parentPort.postMessage(r));
}
