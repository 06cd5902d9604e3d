import { z } from 'zod';

/** A boolean set from the environment (`true`/`false`/`1`/`0`/`yes`/`no`) or from code. */
const flag = z.union([z.boolean(), z.stringbool()]);

/**
 * Platform configuration: listening, database, logging, auth secrets, rate limits.
 * Environment variable names are given beside each field in config/index.ts.
 */
export const platformConfigSchema = z.object({
  /** Listening address: 127.0.0.1 answers this host only; 0.0.0.0 (or ::) every interface. */
  host: z.string().default('127.0.0.1'),
  /** Listening TCP port (also read from PORT); 0 = one the kernel picks, logged at start. */
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Base URL clients and nodes use to reach this instance (printed, used in install.sh). */
  public_url: z.url().optional(),
  /** Postgres URL (a Unix socket as libpq writes it: `?host=/var/run/postgresql` or a %2F-encoded host); absent = embedded PGlite served on a local socket, data in data_dir. */
  database_url: z.string().optional(),
  /**
   * Folder of the embedded database (`<data_dir>/pglite`, used without a database URL) and of the
   * secrets key file (`<data_dir>/secrets.key`, used without `secrets_key`); relative to the
   * folder the control plane is started from.
   */
  data_dir: z.string().default('.data'),
  /** Least level of the JSON log lines (pino) written to stdout. */
  log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Unique name of this instance (node sockets are recorded against it). */
  instance_id: z.string().min(1).max(64).optional(),
  /**
   * HS256 key for session JWTs (VANTAGE_JWT_SECRET, at least 32 characters). Absent = a random
   * key generated on first start and kept in the database, so every instance shares it.
   */
  jwt_secret: z.string().min(32).optional(),
  /** Refresh-token (session) lifetime in seconds; default 30 days. */
  session_ttl_s: z.coerce.number().int().min(60).default(30 * 24 * 3600),
  /** Take the client address from X-Forwarded-For (rightmost entry) instead of the socket. */
  trust_proxy: flag.default(false),
  /** Fixed rate-limit window in seconds (docs/api/conventions.md: 429 with Retry-After and X-RateLimit-*). */
  rate_limit_window_s: z.coerce.number().int().min(1).max(3600).default(60),
  /**
   * Longest time a request's count is held in memory before it is written to the shared counter,
   * ms (middleware/rate-counter.ts): one write per bucket per interval instead of one per request.
   * Several instances may together admit what they counted in one interval beyond a limit; 0 =
   * every request written at once (exact across instances).
   */
  rate_limit_sync_ms: z.coerce.number().int().min(0).max(10_000).default(200),
  /** Requests per window per source IP for anonymous callers. */
  rate_limit_anonymous: z.coerce.number().int().min(1).default(120),
  /** Requests per window per credential (session, API key, PAT). */
  rate_limit_keyed: z.coerce.number().int().min(1).default(1200),
  /**
   * Requests per window per source IP whose credential is refused (401: unknown, revoked or
   * expired bearer on HTTP, or on a node socket upgrade). Beyond it every request carrying a
   * credential from that address gets 429 until the window ends.
   */
  rate_limit_invalid_credentials: z.coerce.number().int().min(1).default(60),
  /**
   * WebSocket upgrade attempts per window per source IP (node sockets and any other request
   * carrying Upgrade), answered 429 before the upgrade beyond it. Generous because many nodes
   * may share one NAT address: each reconnects once after a control-plane restart, and a failing
   * agent retries at most every 2 s (backoff 2 s doubling to 60 s).
   */
  rate_limit_upgrades: z.coerce.number().int().min(1).default(600),
  /** Shutdown: time open HTTP requests and node sockets get to finish before they are cut, ms. */
  shutdown_grace_ms: z.coerce.number().int().min(0).max(600_000).default(3_000),
  /** Shutdown: hard deadline after SIGTERM/SIGINT; the process exits (status 1) when it is reached, ms. */
  shutdown_timeout_ms: z.coerce.number().int().min(1_000).max(600_000).default(15_000),
});
