import { z } from 'zod';

/**
 * The embedded database (PGlite, used when no database URL is set: db/embedded.ts). Each field is
 * read once in main.ts (VANTAGE_<FIELD>); ignored with an external Postgres.
 */
export const embeddedConfigSchema = z.object({
  /**
   * Postgres `shared_buffers` of the embedded database, MiB. The embedded Postgres runs inside the
   * control-plane process and its buffer pool is resident from the start, so this is memory the
   * process holds all the time (Postgres' own default, 128, costs about 110 MiB more than 16).
   * Pages beyond it are read through the operating system's file cache.
   */
  embedded_shared_buffers_mb: z.coerce.number().int().min(1).max(4096).default(16),
});
