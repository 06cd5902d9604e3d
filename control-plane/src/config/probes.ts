import { z } from 'zod';

/** Who may request ad-hoc probes (POST /v1/probe/*): see {@link probesConfigSchema}. */
export const PUBLIC_PROBES_MODES = ['anonymous', 'accounts', 'off'] as const;
export type PublicProbesMode = (typeof PUBLIC_PROBES_MODES)[number];

/** Ad-hoc probe access (docs/api/probes.md "Who may probe"). Read once in main.ts (VANTAGE_<FIELD>). */
export const probesConfigSchema = z.object({
  /**
   * Probes: who may create ad-hoc probes (POST /v1/probe/{type}). `accounts` (default): callers
   * with a credential (anonymous → 401 AUTH_REQUIRED), the right default for a team running
   * Vantage for itself; `anonymous`: anyone, as a public looking-glass service; `off`: nobody
   * (403 FORBIDDEN; a monitor's "Run now" and polling existing probes still work).
   */
  public_probes: z.enum(PUBLIC_PROBES_MODES).default('accounts'),
});
