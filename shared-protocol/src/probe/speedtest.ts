import { z } from 'zod';
import { ms } from './measures.js';

/** Largest transfer a request may ask for, bytes (1 GiB); a node's own cap (its operator setting) usually comes first. */
export const SPEEDTEST_BYTES_MAX = 1024 ** 3;

/**
 * Speed test params (docs/api/probes.md "Speed test"): `max_bytes` to download at most (default:
 * the node's cap), `upload_bytes` to send in a POST to the same URL after the download (default 0:
 * no upload), `timeout_ms` for each direction (1000-120000, default 30000); the node's byte and
 * time caps bound both whatever is asked. ip_version.
 */
export const speedtestParamsSchema = z.strictObject({
  max_bytes: z.number().int().min(1).max(SPEEDTEST_BYTES_MAX).optional(),
  upload_bytes: z.number().int().min(0).max(SPEEDTEST_BYTES_MAX).default(0),
  timeout_ms: z.number().int().min(1000).max(120000).default(30000),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
});

const mbps = () => z.number().min(0).max(1e6);
const bytes = () => z.number().int().min(0).max(SPEEDTEST_BYTES_MAX);

/**
 * Speed test output: `download_mbps` = bytes × 8 / duration (10^6 bit/s, as curl's speed_download
 * × 8 / 10^6: over the whole request, connect to last byte); `ttfb_ms` request start to the first
 * body byte; `capped` says which cap ended the download early (`bytes`, `time`) or null when the
 * body ended on its own; the upload figures are null without an upload.
 */
export const speedtestOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  status_code: z.number().int().min(100).max(999).nullable(),
  download_mbps: mbps().nullable(),
  bytes: bytes(),
  duration_ms: ms().nullable(),
  ttfb_ms: ms().nullable(),
  capped: z.enum(['bytes', 'time']).nullable(),
  upload_mbps: mbps().nullable(),
  upload_bytes: bytes(),
  upload_duration_ms: ms().nullable(),
});

export type SpeedtestParams = z.infer<typeof speedtestParamsSchema>;
export type SpeedtestOutput = z.infer<typeof speedtestOutputSchema>;
