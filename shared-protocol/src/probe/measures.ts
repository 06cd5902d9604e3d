import { z } from 'zod';

/**
 * Upper bound of any measured duration, ms: 10 minutes, above every check's own bound (a task is
 * cut at 300 s, a ping at 50 packets × 10 s apart).
 */
export const MEASURED_MS_MAX = 600_000;

/** A measured duration in ms: finite, 0 to {@link MEASURED_MS_MAX}. */
export const ms = () => z.number().min(0).max(MEASURED_MS_MAX);
/** The same as an integer (the HTTP phases of docs/api/probes.md are integers). */
export const msInt = () => z.number().int().min(0).max(MEASURED_MS_MAX);

/** Leaf certificate facts users expect beside `tls`: subject CN, issuer CN, expiry and days left. */
export const certificateSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  not_before: z.string(),
  not_after: z.string(),
  days_left: z.number().int(),
  san: z.array(z.string()),
});
