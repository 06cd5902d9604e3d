import { z } from 'zod';

/**
 * Monitor placement (docs/api/monitors.md "Placement"; monitors/placement-job.ts). Each field is
 * read once in main.ts (VANTAGE_<FIELD>).
 */
export const placementConfigSchema = z.object({
  /**
   * How long a placed node may stay offline before its monitors move to other nodes, ms (default
   * 5 min): a node restarting or briefly cut off keeps its monitors, and they keep running on it
   * meanwhile (nodes run their assignments while unreachable).
   */
  placement_grace_ms: z.coerce.number().int().min(0).max(7 * 24 * 3600_000).default(300_000),
  /** How often each instance's placement job looks for work (queued monitors, nodes past the grace), ms. */
  placement_interval_ms: z.coerce.number().int().min(50).max(600_000).default(2_000),
  /**
   * How often one instance looks for a better spread that new nodes make possible, ms (0 = never).
   * Each pass moves at most `placement_rebalance_moves_max` monitors, one node each: bounded churn.
   */
  placement_rebalance_interval_ms: z.coerce.number().int().min(0).max(24 * 3600_000).default(60_000),
  /** Most monitors one rebalance pass moves (one node each); 0 = no rebalancing. */
  placement_rebalance_moves_max: z.coerce.number().int().min(0).max(100_000).default(200),
});
