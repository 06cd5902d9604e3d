import { z } from 'zod';

/**
 * A check that failed the round behind a monitor's state change, with its error and the node that
 * ran it (state changes, docs/api/monitors.md; `monitor.down` and `monitor.degraded` events,
 * docs/api/webhooks.md): `node_id` (and `country`) null for the checks the control plane runs
 * itself (`heartbeat`, `domain_expiry`: docs/api/checks.md "Checks the control plane runs"), which
 * have no node. Its own module (zod only), so the event catalog can use it without loading the
 * monitor schemas.
 * @example { "node_id": "n_01jd3k6w9z4q8r2t7v5x1y3b6c", "country": "DE", "error": "connection refused" }
 */
export const failingNodeSchema = z.object({
  node_id: z.string().nullable(),
  country: z.string().nullable(),
  error: z.string().nullable(),
});
export type FailingNode = z.infer<typeof failingNodeSchema>;
