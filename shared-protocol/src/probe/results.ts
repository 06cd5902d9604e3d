import { z } from 'zod';
import { idSchema } from '../ids.js';
import { taskStatusSchema } from './request.js';
import {
  dnsOutputSchema, dnsRecordSchema, failureClassSchema, httpOutputSchema, pingOutputSchema,
  tcpOutputSchema, tracerouteOutputSchema,
} from './outputs.js';
import { PROBE_TYPES } from './params.js';
import { mtrOutputSchema } from './mtr.js';
import { smtpOutputSchema } from './smtp.js';
import { ntpOutputSchema } from './ntp.js';
import { headersOutputSchema, headersSecuritySchema, HEADERS_REASONS } from './headers.js';
import { speedtestOutputSchema } from './speedtest.js';
import { sslOutputSchema } from './ssl.js';

/** The node facts attached to each node result (docs/api/probes.md): `{ asn, city, country, isp }`. */
export const nodeFactsSchema = z.object({
  asn: z.number().int().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  isp: z.string().nullable(),
});

/** Fields every node result has (docs/api/probes.md, Polling). */
const nodeResultBase = z.object({
  node_id: idSchema('node'),
  node_name: z.string(),
  node: nodeFactsSchema,
  success: z.boolean(),
  error: z.string().nullable(),
  error_class: failureClassSchema.nullable(),
  /** Headline time of the check in ms: response_ms, avg rtt, query time or connect time. */
  latency_ms: z.number().nullable(),
  finished_at: z.iso.datetime().nullable(),
});

/**
 * HTTP node result: docs/api/probes.md's fields exactly (node_id, success, error, final_url, status_code,
 * response_ms, response_size, headers, node, timing, tls) plus redirects and certificate facts.
 */
export const httpNodeResultSchema = nodeResultBase.extend(httpOutputSchema.shape);
/** Ping node result: base fields plus packets sent/received, loss and min/avg/max/stddev rtt. */
export const pingNodeResultSchema = nodeResultBase.extend(pingOutputSchema.shape);
/** DNS node result: base fields plus rcode, answers with ttl and query time. */
export const dnsNodeResultSchema = nodeResultBase.extend(dnsOutputSchema.shape);
/** TCP node result: base fields plus connect time and open/refused/timeout/unreachable. */
export const tcpNodeResultSchema = nodeResultBase.extend(tcpOutputSchema.shape);
/** Traceroute node result: base fields plus per-hop address and rtts. */
export const tracerouteNodeResultSchema = nodeResultBase.extend(tracerouteOutputSchema.shape);
/** mtr node result: base fields plus rounds and the per-hop `mtr --report` statistics. */
export const mtrNodeResultSchema = nodeResultBase.extend(mtrOutputSchema.shape);
/** SMTP node result: base fields plus greeting, EHLO keywords, STARTTLS and TLS facts, phase timings. */
export const smtpNodeResultSchema = nodeResultBase.extend(smtpOutputSchema.shape);
/** NTP node result: base fields plus offset, delay, stratum, reference id, leap and root figures. */
export const ntpNodeResultSchema = nodeResultBase.extend(ntpOutputSchema.shape);
/** Headers-analysis node result: base fields plus the analysis of that node's fetch. */
export const headersNodeResultSchema = nodeResultBase.extend(headersOutputSchema.shape);
/** Speed test node result: base fields plus throughput, bytes and times of each direction. */
export const speedtestNodeResultSchema = nodeResultBase.extend(speedtestOutputSchema.shape);
/** SSL audit node result: base fields plus the address and port audited and the audit (null when none was possible). */
export const sslNodeResultSchema = nodeResultBase.extend(sslOutputSchema.shape);

/** Summary of docs/api/probes.md: averages over successful nodes' `latency_ms`; counts over all nodes. */
export const taskSummarySchema = z.object({
  avg_response_ms: z.number().nullable(),
  p95_response_ms: z.number().nullable(),
  success_count: z.number().int().min(0),
  fail_count: z.number().int().min(0),
});

/** A node result of any type (what the polling endpoint returns in `node_results[]`). */
export const nodeResultSchema = z.union([
  httpNodeResultSchema, pingNodeResultSchema, dnsNodeResultSchema, tcpNodeResultSchema, tracerouteNodeResultSchema,
  mtrNodeResultSchema, smtpNodeResultSchema, ntpNodeResultSchema, headersNodeResultSchema, speedtestNodeResultSchema, sslNodeResultSchema,
  // A node that never answered: only the base fields are known.
  nodeResultBase,
]);
export type NodeResult = z.infer<typeof nodeResultSchema>;

/**
 * Probe task result `data` (docs/api/probes.md): `{ task_id, target, status, node_results[], summary }` plus
 * `probe_type`. DNS tasks add docs/api/probes.md's `domain`, `type` (the record type), `pollution_detected`
 * and `records_by_node[]`; `type` is therefore never used for the probe type.
 */
export const probeTaskResultSchema = z.object({
  task_id: idSchema('probe_task'),
  task_ids: z.array(idSchema('probe_task')),
  probe_type: z.enum(PROBE_TYPES),
  target: z.string(),
  status: taskStatusSchema,
  created_at: z.iso.datetime(),
  /** When every node had a result (null until then); a late replacement does not move it. */
  completed_at: z.iso.datetime().nullable(),
  /**
   * When the group last changed: its creation, or the last node result stored. After
   * `completed_at` only when a node's late result replaced the timeout failure the control plane
   * had recorded for it (docs/api/probes.md "When a result is final").
   */
  updated_at: z.iso.datetime(),
  node_results: z.array(nodeResultSchema),
  summary: taskSummarySchema,
  domain: z.string().optional(),
  type: z.string().optional(),
  pollution_detected: z.boolean().optional(),
  records_by_node: z.array(z.object({ node_id: idSchema('node'), records: z.array(dnsRecordSchema) })).optional(),
  /** Headers analysis (docs/api/probes.md): the fields of the first node result that has them, successful ones first. */
  url: z.string().optional(),
  final_url: z.string().nullable().optional(),
  hops: headersOutputSchema.shape.hops.optional(),
  headers: z.record(z.string(), z.string()).optional(),
  security: headersSecuritySchema.optional(),
  analysis: z.object({ insecure: z.boolean(), reasons: z.array(z.enum(HEADERS_REASONS)) }).optional(),
});
export type ProbeTaskResult = z.infer<typeof probeTaskResultSchema>;
