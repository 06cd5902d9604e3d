/*
 * An open-loop HTTP client paced at a fixed rate (paced-worker.mjs), run in a worker thread of its own (so the server
 * under test, in the main thread, never shares an event loop with it), timed with the
 * high-resolution clock (autocannon's histogram counts whole milliseconds).
 *
 *   const r = await pacedLatency({ url, paths, rate_per_s: 1000, duration_s: 10, connections: 10 });
 *
 * Request k is due at start + k / rate; due requests are sent as soon as the worker's timer fires
 * (Node timers tick about once a millisecond), each on a free keep-alive connection of an undici
 * Pool (at most `connections` in flight; a request with none free waits and its wait counts).
 * Latency is measured from the request's due time to its last byte, so a stalled server counts
 * against it in full (no coordinated omission). Returns latency quantiles in ms with µs precision.
 */
import { Worker } from 'node:worker_threads';
import { quantile } from './stats.js';

/** What pacedLatency measured: latency ms (p50, p99, p99.9, max), requests sent, those not answered 2xx, the rate achieved per second. */
export interface PacedResult { p50_ms: number; p99_ms: number; p999_ms: number; max_ms: number; sent: number; failed: number; achieved_per_s: number }

/** url: the server's origin; paths: requested in turn; connections: keep-alive connections at most. */
export interface Job { url: string; paths: string[]; rate_per_s: number; duration_s: number; connections: number }

/** Run the paced client in a worker thread and return its figures. @throws when the worker fails */
export function pacedLatency(job: Job): Promise<PacedResult> {
  return new Promise((resolve, reject) => {
    // Plain JavaScript: a worker does not inherit the main thread's tsx loader on Node 20.
    const w = new Worker(new URL('./paced-worker.mjs', import.meta.url), { workerData: job });
    w.once('message', (m: { latencies_ms: number[]; failed: number; achieved_per_s: number }) => resolve({
      p50_ms: quantile(m.latencies_ms, 0.5), p99_ms: quantile(m.latencies_ms, 0.99), p999_ms: quantile(m.latencies_ms, 0.999),
      max_ms: Math.max(...m.latencies_ms), sent: m.latencies_ms.length, failed: m.failed, achieved_per_s: m.achieved_per_s,
    }));
    w.once('error', reject);
    w.once('exit', (code) => { if (code !== 0) reject(new Error(`paced client exited with ${code}`)); });
  });
}
