import { z } from 'zod';
import { timeParamSchema } from './history.js';

/*
 * HTTP shapes of a monitor's uptime and response-time statistics (docs/api/monitors.md "Uptime"
 * and "Stats").
 */

/** Fixed uptime periods ending now. */
export const UPTIME_PERIODS = { '24h': 86_400, '7d': 604_800, '30d': 2_592_000, '90d': 7_776_000 } as const;
export type UptimePeriod = keyof typeof UPTIME_PERIODS;

/**
 * `GET /v1/monitors/{id}/uptime` query: `period` (24h, 7d, 30d or 90d, ending now; default 24h) or
 * `from` and `to` (ISO or relative like -7d; `to` defaults to now). Not both.
 */
export const uptimeQuerySchema = z.object({
  period: z.enum(Object.keys(UPTIME_PERIODS) as [UptimePeriod, ...UptimePeriod[]]).optional(),
  from: timeParamSchema.optional(),
  to: timeParamSchema.optional(),
});

/**
 * A monitor's uptime over a range. Time counts per judged round (each round covers its interval;
 * a round still running, its elapsed part), in whole seconds: `up_s` + `degraded_s` are up,
 * `downtime_s` down; rounds while the monitor was in maintenance (or paused) count in
 * `maintenance_s` only, rounds no node reported by their deadline in `no_data_s` only; both are
 * left out of the ratio (`monitored_s` = up + degraded + down: the time with data). `uptime` is
 * (up + degraded) / monitored of the seconds given (0..1; null without data), `uptime_percent`
 * the same in percent; `rounds` counts judged rounds by verdict. `incidents`: down spells overlapping the range
 * (state changes into down, plus one already running at `from`); `mttr_s`: their mean time to
 * recovery (down until up or degraded again), over those that recovered within the range, null
 * when none did.
 * @example { "from": "2026-11-21T10:00:00.000Z", "to": "2026-11-22T10:00:00.000Z", "period": "24h", "uptime": 0.99583, "uptime_percent": 99.583, "monitored_s": 86400, "up_s": 85680, "degraded_s": 360, "downtime_s": 360, "maintenance_s": 0, "no_data_s": 0, "incidents": 1, "mttr_s": 360, "rounds": { "up": 1428, "degraded": 6, "down": 6, "no_data": 0 } }
 */
export const uptimeSchema = z.object({
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  period: z.enum(Object.keys(UPTIME_PERIODS) as [UptimePeriod, ...UptimePeriod[]]).nullable(),
  uptime: z.number().min(0).max(1).nullable(),
  uptime_percent: z.number().min(0).max(100).nullable(),
  monitored_s: z.number().int(),
  up_s: z.number().int(),
  degraded_s: z.number().int(),
  downtime_s: z.number().int(),
  maintenance_s: z.number().int(),
  no_data_s: z.number().int(),
  incidents: z.number().int(),
  mttr_s: z.number().nullable(),
  rounds: z.object({ up: z.number().int(), degraded: z.number().int(), down: z.number().int(), no_data: z.number().int() }),
});
export type Uptime = z.infer<typeof uptimeSchema>;

/** Largest number of buckets one stats answer may have. */
export const STATS_BUCKETS_MAX = 1000;
/** Bucket widths chosen when `bucket_s` is not given (the smallest giving at most 100 buckets), seconds. */
export const STATS_BUCKET_STEPS_S = [60, 300, 900, 3600, 21_600, 86_400, 604_800] as const;

/**
 * `GET /v1/monitors/{id}/stats` query: `from` (default -24h), `to` (default now), `bucket_s` (60 s
 * to 30 days; default: the first of 60, 300, 900, 3600, 21600, 86400, 604800 giving at most 100
 * buckets; at most 1000 buckets), `group_by` (`node` or `country`: one series per node or per the
 * nodes' country besides the overall one).
 */
export const statsQuerySchema = z.object({
  from: timeParamSchema.optional(),
  to: timeParamSchema.optional(),
  bucket_s: z.coerce.number().int().min(60).max(2_592_000).optional(),
  group_by: z.enum(['node', 'country']).optional(),
});

/**
 * Checks and response times over a span: `checks`, `failures`, `failure_rate` (0..1, null without
 * checks), and percentiles, min, mean and max of the response time (ms) over the checks that
 * measured one (null without any). Percentiles come from log-bucket histograms: within 2 % of a
 * measured value.
 */
export const statsSummarySchema = z.object({
  checks: z.number().int(),
  failures: z.number().int(),
  failure_rate: z.number().min(0).max(1).nullable(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  p99_ms: z.number().nullable(),
  min_ms: z.number().nullable(),
  avg_ms: z.number().nullable(),
  max_ms: z.number().nullable(),
});
export type StatsSummary = z.infer<typeof statsSummarySchema>;

/** One time bucket: its start and its summary (buckets without checks are listed, with zeros and nulls). */
export const statsBucketSchema = statsSummarySchema.extend({ start: z.iso.datetime() });
export type StatsBucket = z.infer<typeof statsBucketSchema>;

/** One node's or one country's series (`group_by`). */
export const statsGroupSchema = z.object({
  node_id: z.string().nullable(),
  country: z.string().nullable(),
  overall: statsSummarySchema,
  buckets: z.array(statsBucketSchema),
});

/**
 * Response-time and failure statistics per time bucket. `source`: `raw` when read from stored
 * checks, `rollup` when from hourly rollups (buckets of an hour or more, and ranges older than the
 * raw retention; the current hours come from raw checks). `groups` is null without `group_by`.
 * @example { "from": "2026-11-21T10:00:00.000Z", "to": "2026-11-22T10:00:00.000Z", "bucket_s": 900, "source": "raw", "overall": { "checks": 4320, "failures": 12, "failure_rate": 0.00278, "p50_ms": 81.2, "p95_ms": 140.7, "p99_ms": 210.3, "min_ms": 61, "avg_ms": 88.4, "max_ms": 2310 }, "buckets": [], "groups": null }
 */
export const statsSchema = z.object({
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  bucket_s: z.number().int(),
  source: z.enum(['raw', 'rollup']),
  overall: statsSummarySchema,
  buckets: z.array(statsBucketSchema),
  groups: z.array(statsGroupSchema).nullable(),
});
export type Stats = z.infer<typeof statsSchema>;
