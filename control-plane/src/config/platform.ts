import { z } from 'zod';

/**
 * Platform configuration (issue 3): listening, database, logging, auth secrets, rate limits.
 * Environment variable names are given beside each field in config/index.ts.
 */
export const platformConfigSchema = z.object({
  host: z.string().default('127.0.0.1'),
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Base URL clients and nodes use to reach this instance (printed, used in install.sh). */
  public_url: z.url().optional(),
  /** Postgres URL; absent = embedded PGlite served on a local socket, data in data_dir. */
  database_url: z.string().optional(),
  data_dir: z.string().default('.data'),
  log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Unique name of this instance (node sockets are recorded against it). */
  instance_id: z.string().min(1).max(64).optional(),
});
