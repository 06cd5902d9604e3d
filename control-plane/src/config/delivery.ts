import { z } from 'zod';
import { cidrListSchema } from './cidr.js';

/**
 * The retry schedule of docs/architecture/delivery.md: after the first attempt (immediately),
 * retries about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each failure; then failed.
 */
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/**
 * Outbound delivery (webhooks, e-mail, alert channels) and e-mail settings. Each field is read
 * once in main.ts from VANTAGE_<FIELD> (arrays comma-separated); docs/architecture/delivery.md.
 */
export const deliveryConfigSchema = z.object({
  /**
   * SMTP server for e-mail, as a URL: `smtp://user:pass@host:587` (STARTTLS when offered) or
   * `smtps://…:465` (TLS). Absent: e-mails are written to the log instead and the API says so.
   */
  smtp_url: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  /** Sender of every e-mail (RFC 5322 mailbox, e.g. `Vantage <noreply@example.com>`). */
  smtp_from: z.string().min(3).max(320).default('Vantage <vantage@localhost>'),
  /** One attempt's deadline (connect, request, response headers and the logged part of the body), ms. */
  delivery_timeout_ms: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** Attempts under way at once on this instance (all destinations). */
  delivery_max_inflight: z.coerce.number().int().min(1).max(10_000).default(200),
  /** Attempts under way at once to one destination (one webhook endpoint, one e-mail address), over all instances. */
  delivery_destination_concurrency: z.coerce.number().int().min(1).max(1000).default(16),
  /** Delay before each retry, ms; the number of entries is the number of retries (default 5 s … 10 h, 7 retries). */
  delivery_retry_delays_ms: z.array(z.coerce.number().int().min(0).max(7 * 24 * 3600 * 1000)).min(0).max(50).default(DEFAULT_RETRY_DELAYS_MS),
  /** How often the worker looks for due deliveries besides LISTEN/NOTIFY wake-ups (the only way in embedded mode), ms. */
  delivery_poll_interval_ms: z.coerce.number().int().min(20).max(60_000).default(1_000),
  /** Postgres LISTEN/NOTIFY channel that wakes every instance's worker when a delivery is queued. */
  delivery_notify_channel: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).default('vantage_delivery'),
  /**
   * CIDRs outbound deliveries may reach although private or reserved (comma list), on top of
   * `probe_allow_cidrs`: e.g. an internal alert receiver (`10.0.0.0/8`), or one on the same host
   * (`127.0.0.1/32`). Default none: public addresses only. A webhook endpoint or alert channel URL
   * refused for its address names this setting (error `details.setting`), as do refused deliveries.
   */
  delivery_allow_cidrs: cidrListSchema('10.0.0.0/8'),
  /** Finished deliveries and their attempt logs are deleted after this many days. */
  delivery_retention_days: z.coerce.number().int().min(1).max(3650).default(30),
  /** A webhook endpoint whose every attempt failed for this long is disabled and its owner e-mailed, s (5 days). */
  webhook_disable_after_s: z.coerce.number().int().min(1).max(365 * 24 * 3600).default(5 * 24 * 3600),
  /** Lifetime of the link in an e-mail verification message, s (24 h). */
  email_verification_ttl_s: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(24 * 3600),
  /** Least time between two verification e-mails to one account (resend), s. */
  email_verification_resend_s: z.coerce.number().int().min(0).max(24 * 3600).default(60),
});
