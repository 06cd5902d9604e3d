import { z } from 'zod';
import { failureClassSchema } from '../probe/outputs.js';
import { PROBE_TYPES } from '../probe/params.js';

/*
 * Monitor checks that probe nodes run (docs/api/checks.md). heartbeat and domain_expiry run on the
 * control plane. browser checks run in the node's Chromium (docs/operators/agent.md "Browser checks").
 */

/** Monitor types a node runs with its check engine. */
export const NODE_CHECK_TYPES = [
  'http', 'https', 'keyword', 'ping', 'tcp', 'dns', 'traceroute', 'ssl_expiry', 'rbl', 'llm_endpoint', 'tool_api', 'rag', 'browser',
] as const;
export const nodeCheckTypeSchema = z.enum(NODE_CHECK_TYPES);
export type NodeCheckType = z.infer<typeof nodeCheckTypeSchema>;

/** True when monitors of `type` run on nodes through the check engine. */
export function isNodeCheckType(type: string): type is NodeCheckType {
  return (NODE_CHECK_TYPES as readonly string[]).includes(type);
}

/**
 * What a node can advertise in `capabilities` (docs/api/nodes.md): the probe types, plus `browser`
 * when its Chromium starts (docs/operators/agent.md "Browser checks").
 */
export const NODE_CAPABILITIES = [...PROBE_TYPES, 'browser'] as const;
export type NodeCapability = (typeof NODE_CAPABILITIES)[number];

/**
 * The node capability (docs/api/nodes.md `capabilities`) a check type needs: ping and traceroute
 * need raw ICMP sockets; browser needs a Chromium that starts; the others need what the http, tcp
 * or dns probes need. Placement picks only nodes that advertise it.
 */
export const CHECK_CAPABILITY: Record<NodeCheckType, NodeCapability> = {
  http: 'http', https: 'http', keyword: 'http', llm_endpoint: 'http', tool_api: 'http', rag: 'http',
  ssl_expiry: 'tcp', tcp: 'tcp', ping: 'ping', traceroute: 'traceroute', dns: 'dns', rbl: 'dns', browser: 'browser',
};

/**
 * Why a check failed: the probe classes (target, resolver, timeout, refused, unreachable, blocked,
 * cancelled, rejected, internal) plus `assertion`: the target answered, but a condition the
 * monitor sets did not hold (an assertion, the keyword, expected DNS values, a packet-loss,
 * latency or token threshold, the certificate's remaining days). An unexpected HTTP status is
 * `target`, as for probes.
 */
export const checkFailureClassSchema = z.enum([...failureClassSchema.options, 'assertion']);
export type CheckFailureClass = z.infer<typeof checkFailureClassSchema>;
