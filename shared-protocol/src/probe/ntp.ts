import { z } from 'zod';
import { LIMITS as L } from '../limits.js';
import { ms } from './measures.js';

/**
 * NTP params (docs/api/probes.md "ntp"): count samples (default 4, max 16), interval_ms between
 * them (default 1000, min 100), timeout_ms per sample (default 2000), ip_version. The port is in
 * the target (host:port), default 123.
 */
export const ntpParamsSchema = z.strictObject({
  count: z.number().int().min(1).max(L.ntp_count_max).default(L.ntp_count_default),
  interval_ms: z.number().int().min(100).max(10000).default(1000),
  timeout_ms: z.number().int().min(100).max(10000).default(2000),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
});

/** A clock offset, ms: finite and within an NTP era (2^32 s) either way. */
const offset = () => z.number().min(-(2 ** 32) * 1000).max(2 ** 32 * 1000);

/** One sample: the RFC 5905 8 on-wire offset θ and round-trip delay δ, null when no valid reply came. */
export const ntpSampleSchema = z.object({ offset_ms: offset().nullable(), delay_ms: ms().nullable() });

/**
 * NTP output (RFC 5905 7.3 header fields of the chosen reply, the one with the smallest delay as
 * ntpdate and sntp choose): offset_ms (server clock − node clock), delay_ms, stratum (0 = kiss-o'-
 * death), reference_id (stratum 0-1: the four-character code; otherwise the IPv4 address or the
 * hash of an IPv6 one, dotted), leap (none, add_second, del_second, unsynchronized), root_delay_ms,
 * root_dispersion_ms, version; null until a valid reply came. `samples` has one entry per request.
 */
export const ntpOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  port: z.number().int().min(1).max(65535),
  samples_sent: z.number().int().min(0).max(L.ntp_count_max),
  samples_received: z.number().int().min(0).max(L.ntp_count_max),
  offset_ms: offset().nullable(),
  delay_ms: ms().nullable(),
  stratum: z.number().int().min(0).max(255).nullable(),
  reference_id: z.string().max(15).nullable(),
  leap: z.enum(['none', 'add_second', 'del_second', 'unsynchronized']).nullable(),
  root_delay_ms: z.number().min(0).max(2 ** 16 * 1000).nullable(),
  root_dispersion_ms: z.number().min(0).max(2 ** 16 * 1000).nullable(),
  version: z.number().int().min(1).max(7).nullable(),
  samples: z.array(ntpSampleSchema).max(L.ntp_count_max),
}).superRefine((o, ctx) => {
  if (o.samples_received > o.samples_sent) ctx.addIssue({ code: 'custom', path: ['samples_received'], message: 'more replies than requests' });
  if (o.samples.length > o.samples_sent) ctx.addIssue({ code: 'custom', path: ['samples'], message: 'more samples than requests' });
});

export type NtpParams = z.infer<typeof ntpParamsSchema>;
export type NtpOutput = z.infer<typeof ntpOutputSchema>;
