import { z } from 'zod';
import { idSchema } from '../ids.js';
import { PROBE_PARAMS, type ProbeType } from './params.js';

/**
 * Node selection (docs/api/probes.md leaves its structure open): how many nodes,
 * and filters that narrow the pool. Empty filters match every node.
 */
export const nodeSelectionSchema = z.strictObject({
  count: z.number().int().min(1).max(1000).default(3),
  countries: z.array(z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code').transform((c) => c.toUpperCase())).max(50).default([]),
  regions: z.array(z.string().min(1).max(64)).max(50).default([]),
  asns: z.array(z.number().int().min(1).max(4294967295)).max(50).default([]),
  providers: z.array(z.string().min(1).max(128)).max(50).default([]),
  tags: z.array(z.string().min(1).max(64)).max(50).default([]),
});
export type NodeSelection = z.infer<typeof nodeSelectionSchema>;

const target = z.string().trim().min(1, 'target is required').max(2048);

/**
 * The common probe request of docs/api/probes.md, with `params` typed for `type`:
 * `{ target, node_ids?, node_id?, nodes?, params? }`.
 * @example probeRequestSchema('ping').parse({ target: 'example.com', params: { count: 3 } })
 */
export function probeRequestSchema<T extends ProbeType>(type: T) {
  // prefault: an absent `params` is parsed as `{}`, so every field default applies.
  const params = (PROBE_PARAMS[type] as z.ZodObject).prefault({}) as unknown as z.ZodDefault<(typeof PROBE_PARAMS)[T]>;
  return z.strictObject({
    target,
    node_ids: z.array(idSchema('node')).min(1).max(1000).optional(),
    node_id: idSchema('node').optional(),
    nodes: nodeSelectionSchema.optional(),
    params,
  });
}

export const httpProbeRequestSchema = probeRequestSchema('http');
export const pingProbeRequestSchema = probeRequestSchema('ping');
export const dnsProbeRequestSchema = probeRequestSchema('dns');
export const tcpProbeRequestSchema = probeRequestSchema('tcp');
export const tracerouteProbeRequestSchema = probeRequestSchema('traceroute');
export const mtrProbeRequestSchema = probeRequestSchema('mtr');
export const smtpProbeRequestSchema = probeRequestSchema('smtp');
export const ntpProbeRequestSchema = probeRequestSchema('ntp');
export const headersProbeRequestSchema = probeRequestSchema('headers');
export const speedtestProbeRequestSchema = probeRequestSchema('speedtest');
export const sslProbeRequestSchema = probeRequestSchema('ssl');

/** Probe creation response `data` (docs/api/probes.md): `{ task_id, task_ids[], status: 'queued' }`. */
export const probeCreatedSchema = z.object({
  task_id: idSchema('probe_task'),
  task_ids: z.array(idSchema('probe_task')),
  status: z.literal('queued'),
});
export type ProbeCreated = z.infer<typeof probeCreatedSchema>;

/** Probe task states (docs/api/probes.md). */
export const taskStatusSchema = z.enum(['queued', 'running', 'completed', 'failed']);
export type TaskStatus = z.infer<typeof taskStatusSchema>;
