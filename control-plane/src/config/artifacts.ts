import { ARTIFACT_MAX_BYTES_DEFAULT } from '@vantage/shared-protocol';
import { z } from 'zod';

/**
 * Check artifacts (docs/api/artifacts.md, docs/architecture/artifacts.md): browser checks' HAR
 * archives and screenshots, uploaded by nodes and kept under `<data_dir>/artifacts`.
 */
export const artifactsConfigSchema = z.object({
  /** Largest artifact a node may upload, bytes (VANTAGE_ARTIFACT_MAX_BYTES); larger: 413 and nothing stored. */
  artifact_max_bytes: z.coerce.number().int().min(1024).max(1024 * 1024 * 1024).default(ARTIFACT_MAX_BYTES_DEFAULT),
  /** How long a signed artifact URL in a check read through the API stays valid, seconds (VANTAGE_ARTIFACT_URL_TTL_S). */
  artifact_url_ttl_s: z.coerce.number().int().min(60).max(7 * 86_400).default(3600),
  /**
   * HMAC key for signed artifact URLs (VANTAGE_ARTIFACT_URL_SECRET, at least 32 characters).
   * Absent = a random key generated on first start and kept in the database (every instance shares it).
   */
  artifact_url_secret: z.string().min(32).optional(),
  /** How often the artifact retention job is looked at, ms (VANTAGE_ARTIFACT_JOBS_INTERVAL_MS); it runs hourly. */
  artifact_jobs_interval_ms: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
});
