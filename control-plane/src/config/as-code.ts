import { z } from 'zod';

/** Monitoring as code provisioned at start (docs/api/as-code.md "Provisioning"). */
export const asCodeConfigSchema = z.object({
  /**
   * A glob of as-code files (VANTAGE_PROVISION_FILES, e.g. `/etc/vantage/monitoring/*.yaml`)
   * applied through the API at start and again whenever one changes. Unset = no provisioning.
   */
  provision_files: z.string().trim().min(1).optional(),
  /** The API key (sk_live_…) of the account the files are applied into (VANTAGE_PROVISION_API_KEY); required with provision_files. */
  provision_api_key: z.string().trim().min(1).optional(),
  /** Delete what the provisioned files no longer name (VANTAGE_PROVISION_PRUNE; only resources marked from those files). */
  provision_prune: z.union([z.boolean(), z.stringbool()]).default(true),
  /** How often the files are checked for a change, ms (VANTAGE_PROVISION_POLL_MS). */
  provision_poll_ms: z.coerce.number().int().min(100).max(3_600_000).default(5000),
});
