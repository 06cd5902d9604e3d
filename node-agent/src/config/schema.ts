import ipaddr from 'ipaddr.js';
import { isSecret } from '@vantage/shared-protocol';
import { z } from 'zod';
import { LOG_LEVELS } from '../log.js';
import { Secret } from '../secret.js';

/** Defaults of the agent's config fields (docs/operators/agent.md). */
export const CONFIG_DEFAULTS = {
  concurrency: 32,
  queue_max: 256,
  outbox_max_results: 100_000,
  outbox_max_age_s: 7 * 24 * 3600,
  allow_private: false,
  allow_cidrs: [] as string[],
  log_level: 'info' as const,
  browser_concurrency: 2,
  artifact_spool_max_bytes: 256 * 1024 * 1024,
  speedtest_max_bytes: 128 * 1024 * 1024,
  speedtest_max_duration_ms: 30_000,
};

const cidr = z.string().refine((c) => {
  try {
    ipaddr.parseCIDR(c);
    return true;
  } catch {
    return false;
  }
}, { message: 'must be a CIDR such as 198.18.0.0/15' });

/**
 * The agent's configuration after merging flags > env > file (config/load.ts). `token` becomes a
 * {@link Secret}; `control_plane_url` is an http(s) base URL (the WebSocket path is added later).
 */
export const agentConfigSchema = z.object({
  /** Base URL of the control plane (http or https; the WebSocket path is added); stored at enrollment, so later starts may leave it out. */
  control_plane_url: z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' }).optional(),
  /** `ent_` enrollment token, needed only for the first start (exchanged once for a node credential); keep it off the command line. */
  token: z.string()
    .refine((v) => isSecret('enrollment_token', v), { message: 'must be an ent_… enrollment token' })
    .transform((v) => new Secret(v))
    .optional(),
  /** Folder of the node's identity, outbox and spool (`state.db`, mode 0700). Default: /var/lib/vantage-agent when root or when it exists, else ./.agent-state. */
  state_dir: z.string().min(1),
  /** Node name sent at enrollment (installer --name); default: the token's label, else the host name. */
  name: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'may only hold letters, digits and . _ -').optional(),
  /** Probe tasks and monitor checks running at once. */
  concurrency: z.number().int().min(1).max(1024).default(CONFIG_DEFAULTS.concurrency),
  /** Tasks waiting for a slot beyond the `concurrency` running; past it a new task is refused at once ("queue full"). */
  queue_max: z.number().int().min(0).max(100_000).default(CONFIG_DEFAULTS.queue_max),
  /** Results kept while the control plane has not acknowledged them; past it the oldest are dropped (counted in `status`). */
  outbox_max_results: z.number().int().min(10).max(10_000_000).default(CONFIG_DEFAULTS.outbox_max_results),
  /** Age past which an unacknowledged result is dropped, s (7 days). */
  outbox_max_age_s: z.number().int().min(60).max(365 * 24 * 3600).default(CONFIG_DEFAULTS.outbox_max_age_s),
  /** The node operator's consent to probe private, loopback and link-local targets (the owner's API switch is needed too: docs/operators/install.md "Private targets"). */
  allow_private: z.boolean().default(CONFIG_DEFAULTS.allow_private),
  /** Ranges this node may probe even when private, comma-separated (flag repeatable). */
  allow_cidrs: z.array(cidr).default(CONFIG_DEFAULTS.allow_cidrs),
  /** Least level of the JSON log lines written to stdout. */
  log_level: z.enum(LOG_LEVELS).default(CONFIG_DEFAULTS.log_level),
  /**
   * The Chromium binary browser checks use (docs/operators/agent.md "Browser checks"); absent: the
   * distribution's /usr/bin/chromium when present. The node advertises `browser` only if it starts.
   */
  browser_executable: z.string().min(1).refine((p) => p.startsWith('/'), { message: 'must be an absolute path such as /usr/bin/chromium' }).optional(),
  /** Browser checks running at once in the node's one Chromium; the rest wait for a slot. */
  browser_concurrency: z.number().int().min(1).max(16).default(CONFIG_DEFAULTS.browser_concurrency),
  /**
   * Disk the browser checks' HAR and screenshot files may take in `<state_dir>/artifacts` while
   * they wait for upload, bytes; past it a check's artifact is left out (its URL empty). 0 = keep none.
   */
  artifact_spool_max_bytes: z.number().int().min(0).max(64 * 1024 ** 3).default(CONFIG_DEFAULTS.artifact_spool_max_bytes),
  /**
   * Bytes one speed test direction (download, upload) may move at most, whatever the request asks
   * (docs/api/probes.md "Speed test"); the transfer is cut there and reported `capped: bytes`.
   */
  speedtest_max_bytes: z.number().int().min(1024).max(1024 ** 3).default(CONFIG_DEFAULTS.speedtest_max_bytes),
  /** Time one speed test direction may take at most, ms, whatever the request asks; then `capped: time`. */
  speedtest_max_duration_ms: z.number().int().min(1000).max(120_000).default(CONFIG_DEFAULTS.speedtest_max_duration_ms),
  /**
   * TCP port of the agent's Prometheus metrics listener (GET /metrics; docs/operators/metrics.md
   * "Node agent"); 0 = one the kernel picks (logged). Unset = no listener (the default).
   */
  metrics_port: z.number().int().min(0).max(65535).optional(),
  /** Address the metrics listener binds; the default answers this host only. */
  metrics_host: z.string().min(1).default('127.0.0.1'),
  /**
   * Bearer token the metrics listener requires (`Authorization: Bearer <token>`, at least 16
   * characters; env VANTAGE_AGENT_METRICS_TOKEN or the config file, never a flag). Unset = none:
   * keep the listener on a loopback address then.
   */
  metrics_token: z.string().min(16).transform((v) => new Secret(v)).optional(),
  /** Test only: record every produced result id in the state DB (outbox/audit.ts; env VANTAGE_AGENT_AUDIT_RESULTS=1). */
  audit_results: z.union([z.boolean(), z.stringbool()]).default(false),
}).strict();

export type AgentConfig = z.infer<typeof agentConfigSchema>;
export type ConfigKey = keyof z.input<typeof agentConfigSchema>;
export const CONFIG_KEYS = Object.keys(agentConfigSchema.shape) as ConfigKey[];
