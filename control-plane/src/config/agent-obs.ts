import { z } from 'zod';

/** What one model costs, USD per million tokens of prompt (input) and of completion (output). */
export const modelPriceSchema = z.strictObject({
  input_per_mtok_usd: z.number().min(0).max(100_000),
  output_per_mtok_usd: z.number().min(0).max(100_000),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

const priceTable = z.string().transform((s, ctx) => {
  try {
    const parsed = z.record(z.string().min(1).max(200), modelPriceSchema).safeParse(JSON.parse(s));
    if (parsed.success) return parsed.data;
    ctx.addIssue({ code: 'custom', message: `price table: ${parsed.error.issues[0]?.message ?? 'invalid'}` });
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a JSON object { "<model>": { "input_per_mtok_usd": n, "output_per_mtok_usd": n } }' });
  }
  return z.NEVER;
});

/** Agent observability (docs/api/agent-obs.md). */
export const agentObsConfigSchema = z.object({
  /**
   * Model prices (VANTAGE_AGENT_OBS_PRICES, JSON `{ "<model>": { "input_per_mtok_usd": n,
   * "output_per_mtok_usd": n } }`), merged over the built-in table (agent-obs/prices.ts): a
   * check's cost is its reported tokens times its model's price.
   */
  agent_obs_prices: z.union([priceTable, z.record(z.string(), modelPriceSchema)]).default({}),
  /** How often the event stream looks for events it was not told about, ms (VANTAGE_AGENT_OBS_STREAM_POLL_MS). */
  agent_obs_stream_poll_ms: z.coerce.number().int().min(50).max(60_000).default(1000),
});
