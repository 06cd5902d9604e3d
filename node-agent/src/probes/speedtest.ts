import type { SpeedtestOutput } from '@vantage/shared-protocol';
import { classifyNetError } from './http/classify.js';
import { parseTargetUrl } from './http/redirects.js';
import { resolveTarget } from './resolve.js';
import { rawDownload } from './speedtest/raw-download.js';
import { transfer, type TransferTarget } from './speedtest/transfer.js';
import type { Probe } from './types.js';

/** The node's caps on one speed test (operator settings `speedtest_max_bytes`, `speedtest_max_duration_ms`). */
export interface SpeedtestCaps {
  /** Bytes one direction may move at most. */
  max_bytes: number;
  /** Time one direction may take at most, ms. */
  max_duration_ms: number;
  /** Extra trusted CA certificates, PEM (tests). */
  ca?: string | string[];
}

/** The caps when the operator set none: 128 MiB and 30 s per direction. */
export const DEFAULT_SPEEDTEST_CAPS: SpeedtestCaps = { max_bytes: 128 * 1024 * 1024, max_duration_ms: 30_000 };

const round3 = (v: number) => Math.round(v * 1000) / 1000;
/** Megabits per second (10^6 bit/s) of `bytes` over `ms`. */
const mbpsOf = (bytes: number, ms: number) => (ms > 0 ? round3((bytes * 8) / (ms / 1000) / 1e6) : 0);

/**
 * Build the speed test probe (docs/api/probes.md "Speed test"): an HTTP(S) GET of the target URL
 * reading the body without keeping it, then, when `params.upload_bytes` > 0, a POST of that many
 * bytes to the same URL. Each direction stops at the smaller of `params.max_bytes` and the node's
 * `caps.max_bytes`, and of `params.timeout_ms` and `caps.max_duration_ms`, so no request can make a
 * node pull or push unbounded data; a capped download still succeeds (`capped` says which cap).
 * No redirects are followed (a 3xx fails with `target`), nor is content decoded (identity asked).
 * Plain-HTTP downloads read a raw socket (speedtest/raw-download.ts), HTTPS ones the https module.
 */
export function createSpeedtestProbe(caps: SpeedtestCaps = DEFAULT_SPEEDTEST_CAPS): Probe<'speedtest'> {
  return {
    type: 'speedtest',
    async run(target, params, ctx) {
      const output: SpeedtestOutput = {
        resolved_address: null, status_code: null, download_mbps: null, bytes: 0, duration_ms: null, ttfb_ms: null, capped: null,
        upload_mbps: null, upload_bytes: 0, upload_duration_ms: null,
      };
      const url = parseTargetUrl(target);
      if (!url) return { success: false, error: `not an http(s) URL: ${target.slice(0, 200)}`, error_class: 'rejected', output };
      const resolved = await resolveTarget(url.hostname.replace(/^\[(.*)\]$/, '$1'), params.ip_version, ctx.policy);
      if (!resolved.ok) return { success: false, error: resolved.error, error_class: resolved.error_class, output };
      output.resolved_address = resolved.address;
      const where: TransferTarget = { url, address: resolved.address, family: resolved.family, ca: caps.ca };
      const max_ms = Math.min(params.timeout_ms, caps.max_duration_ms);
      const max_bytes = Math.min(params.max_bytes ?? caps.max_bytes, caps.max_bytes);
      try {
        const down = url.protocol === 'http:'
          ? await rawDownload(where, { max_bytes, max_ms, signal: ctx.signal })
          : await transfer(where, { upload_bytes: 0, max_bytes, max_ms, signal: ctx.signal });
        Object.assign(output, {
          status_code: down.status_code || null, bytes: down.bytes, duration_ms: round3(down.duration_ms),
          ttfb_ms: down.ttfb_ms === null ? null : round3(down.ttfb_ms), capped: down.capped, download_mbps: mbpsOf(down.bytes, down.duration_ms),
        });
        if (down.status_code >= 300) return { success: false, error: `HTTP ${down.status_code} from ${url.href}`, error_class: 'target', output };
        if (down.bytes === 0 && down.capped === 'time') return { success: false, error: `no body byte within ${max_ms} ms`, error_class: 'timeout', output };
        const upload_bytes = Math.min(params.upload_bytes, caps.max_bytes);
        if (upload_bytes > 0) {
          const up = await transfer(where, { upload_bytes, max_bytes: caps.max_bytes, max_ms, signal: ctx.signal });
          output.upload_bytes = upload_bytes;
          output.upload_duration_ms = round3(up.duration_ms);
          output.upload_mbps = up.capped === 'time' ? null : mbpsOf(upload_bytes, up.duration_ms);
          if (up.capped === 'time') return { success: false, error: `upload of ${upload_bytes} bytes not done within ${max_ms} ms`, error_class: 'timeout', output };
          if (up.status_code >= 300) return { success: false, error: `upload answered HTTP ${up.status_code}`, error_class: 'target', output };
        }
        return { success: true, error: null, error_class: null, output };
      } catch (err) {
        return { success: false, ...classifyNetError(err, false, max_ms), output };
      }
    },
  };
}

/** The speed test with the default caps (the agent builds its own from its settings: probes/runner.ts). */
export const speedtestProbe: Probe<'speedtest'> = createSpeedtestProbe();
