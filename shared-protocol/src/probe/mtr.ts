import { z } from 'zod';
import { LIMITS as L } from '../limits.js';
import { ms } from './measures.js';

/** mtr's probe kinds: ICMP echo, UDP datagrams, TCP SYNs. */
export const MTR_PROTOCOLS = ['icmp', 'udp', 'tcp'] as const;

/** TCP mode's default destination port (`mtr --tcp`, traceroute -T). */
export const MTR_TCP_PORT_DEFAULT = 80;

/** Longest an mtr run may last, ms: count × max(interval_ms, timeout_ms) stays under the 300 s task bound. */
export const MTR_RUN_MS_MAX = 280_000;

/**
 * mtr params (docs/api/probes.md "mtr"): count rounds (default 10 like `mtr --report`, max 100);
 * protocol icmp (default, echo requests like mtr), udp (datagrams to 33434+, `mtr --udp`), tcp
 * (SYNs to `port`, default 80, `mtr --tcp`; `port` only with tcp);
 * max_hops default 30 (bound 64, as traceroute); interval_ms between rounds (default 1000, mtr's
 * `-i 1`, min 100); timeout_ms to wait for each probe's answer (default 1000); hostnames (reverse
 * DNS per hop, default true); ip_version.
 * A run is bounded: count × max(interval_ms, timeout_ms) ≤ 280 000 ms.
 */
export const mtrParamsSchema = z.strictObject({
  count: z.number().int().min(1).max(L.mtr_count_max).default(L.mtr_count_default),
  protocol: z.enum(MTR_PROTOCOLS).default('icmp'),
  /** TCP mode's destination port (default 80, as `mtr --tcp` and traceroute -T). */
  port: z.number().int().min(1).max(65535).optional(),
  max_hops: z.number().int().min(1).max(L.traceroute_max_hops_max).default(L.traceroute_max_hops_default),
  interval_ms: z.number().int().min(100).max(10000).default(1000),
  timeout_ms: z.number().int().min(100).max(10000).default(1000),
  /** Look up each hop's reverse DNS name (default true; false is `mtr -n`). */
  hostnames: z.boolean().default(true),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
}).superRefine((p, ctx) => {
  if (p.port !== undefined && p.protocol !== 'tcp') ctx.addIssue({ code: 'custom', path: ['port'], message: 'port is only for protocol tcp' });
  const run_ms = p.count * Math.max(p.interval_ms, p.timeout_ms);
  if (run_ms > MTR_RUN_MS_MAX) {
    ctx.addIssue({ code: 'custom', path: ['count'], message: `count × max(interval_ms, timeout_ms) is ${run_ms} ms; at most ${MTR_RUN_MS_MAX} ms` });
  }
});

/**
 * One mtr hop as `mtr --report` prints it: `loss_pct` = (sent − received) / sent × 100; last, avg,
 * best, worst and stdev (sample standard deviation, mtr's) over the answered probes, null when none
 * answered. `address` is the first address that answered at this TTL (null for `???`); `hostname`
 * its reverse DNS name when one was found; `asn` the hop's autonomous system, set by the control
 * plane from its offline ASN ranges (nodes send null), null for a private or special-purpose
 * address, an unanswered hop or an address no range holds.
 */
export const mtrHopSchema = z.object({
  hop: z.number().int().min(1).max(L.traceroute_max_hops_max),
  address: z.string().nullable(),
  hostname: z.string().max(253).nullable(),
  asn: z.number().int().min(0).max(4294967295).nullable(),
  loss_pct: z.number().min(0).max(100),
  sent: z.number().int().min(0).max(L.mtr_count_max),
  received: z.number().int().min(0).max(L.mtr_count_max),
  last_ms: ms().nullable(),
  avg_ms: ms().nullable(),
  best_ms: ms().nullable(),
  worst_ms: ms().nullable(),
  stdev_ms: ms().nullable(),
}).superRefine((h, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (h.received > h.sent) issue('received', 'more answers than probes sent');
  const loss = h.sent === 0 ? 0 : ((h.sent - h.received) / h.sent) * 100;
  if (Math.abs(loss - h.loss_pct) > 0.01) issue('loss_pct', `loss_pct must be ${loss.toFixed(2)} for these counts`);
  const stats = [h.last_ms, h.avg_ms, h.best_ms, h.worst_ms, h.stdev_ms];
  if (h.received === 0 ? stats.some((x) => x !== null) : stats.some((x) => x === null)) issue('avg_ms', 'times must be present exactly when an answer came');
  if (h.best_ms !== null && h.avg_ms !== null && h.worst_ms !== null && !(h.best_ms <= h.avg_ms + 1e-9 && h.avg_ms <= h.worst_ms + 1e-9)) issue('avg_ms', 'best_ms ≤ avg_ms ≤ worst_ms does not hold');
});

/** mtr output: the rounds run (`rounds` ≤ count; fewer when cut short) and one entry per hop up to the destination. */
export const mtrOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  protocol: z.enum(MTR_PROTOCOLS),
  destination_reached: z.boolean(),
  rounds: z.number().int().min(0).max(L.mtr_count_max),
  hops: z.array(mtrHopSchema).max(L.traceroute_max_hops_max),
});

export type MtrParams = z.infer<typeof mtrParamsSchema>;
export type MtrHop = z.infer<typeof mtrHopSchema>;
export type MtrOutput = z.infer<typeof mtrOutputSchema>;
