import http from 'node:http';
import https from 'node:https';

/** Where and how to send one request: the URL, the address it resolved to (connect there only), TLS trust. */
export interface TransferTarget {
  url: URL;
  address: string;
  family: 4 | 6;
  ca?: string | string[];
}

/** One request's figures: bytes counted, start → first byte and → end, why it stopped early. */
export interface TransferResult {
  status_code: number;
  bytes: number;
  ttfb_ms: number | null;
  duration_ms: number;
  capped: 'bytes' | 'time' | null;
}

const ZEROS = Buffer.alloc(64 * 1024);

/**
 * Send one request to `target` (GET, or POST with `upload_bytes` zero bytes streamed in 64 KiB
 * chunks) and read the response body, counting bytes without keeping them; stop (destroying the
 * socket) after `max_bytes` body bytes (`capped: 'bytes'`) or `max_ms` (`capped: 'time'`).
 * Times in ms (float) from the request's start, like curl's time_total. Rejects on a network
 * error or `signal`; an HTTP error status is returned, not thrown.
 */
export function transfer(target: TransferTarget, opts: { upload_bytes: number; max_bytes: number; max_ms: number; signal: AbortSignal }): Promise<TransferResult> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const since = () => performance.now() - t0;
    const { url } = target;
    // Connect to the address resolved and checked before, never to a second look-up of the name.
    const lookup = (_h: string, o: { all?: boolean }, cb: (e: null, a: unknown, f?: number) => void) =>
      (o?.all ? cb(null, [{ address: target.address, family: target.family }]) : cb(null, target.address, target.family));
    const mod = url.protocol === 'https:' ? https : http;
    const upload = opts.upload_bytes > 0;
    const req = mod.request(url, {
      method: upload ? 'POST' : 'GET', lookup: lookup as never, ca: target.ca, agent: false, signal: opts.signal,
      headers: { 'accept-encoding': 'identity', 'user-agent': 'vantage-speedtest', ...(upload ? { 'content-type': 'application/octet-stream', 'content-length': String(opts.upload_bytes) } : {}) },
    });
    let bytes = 0;
    let ttfb_ms: number | null = null;
    let settled = false;
    let status_seen = 0;
    const timer = setTimeout(() => finish(0, 'time'), opts.max_ms);
    function finish(status_code: number, capped: TransferResult['capped']) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const duration_ms = since();
      if (capped) req.destroy();
      resolve({ status_code: status_code || status_seen, bytes, ttfb_ms, duration_ms, capped });
    }
    req.on('error', (err) => { if (!settled) { settled = true; clearTimeout(timer); reject(err); } });
    req.on('response', (res) => {
      status_seen = res.statusCode ?? 0;
      res.on('data', (chunk: Buffer) => {
        ttfb_ms ??= since();
        bytes += chunk.length;
        if (bytes >= opts.max_bytes) {
          bytes = Math.min(bytes, opts.max_bytes);
          finish(res.statusCode ?? 0, 'bytes');
        }
      });
      res.on('end', () => finish(res.statusCode ?? 0, null));
      res.on('error', (err) => { if (!settled) { settled = true; clearTimeout(timer); reject(err); } });
    });
    if (!upload) {
      req.end();
      return;
    }
    let left = opts.upload_bytes;
    const pump = () => {
      while (left > 0 && !settled) {
        const n = Math.min(left, ZEROS.length);
        left -= n;
        if (!req.write(n === ZEROS.length ? ZEROS : ZEROS.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (left === 0) req.end();
    };
    pump();
  });
}
