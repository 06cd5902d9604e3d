import { z } from 'zod';

/**
 * Checks the control plane runs itself (control-checks/: heartbeat check-ins, domain expiry;
 * docs/api/checks.md). Read once in main.ts (VANTAGE_<FIELD>).
 */
export const controlChecksConfigSchema = z.object({
  /**
   * Domain expiry: an RFC 9224 RDAP bootstrap file (IANA's dns.json format) to use instead of the
   * copy shipped in control-plane/src/lookups/rdap-dns.json, to know registries added since. Read
   * at start; a file that cannot be read or parsed stops the start.
   */
  rdap_bootstrap_file: z.string().min(1).optional(),
});
