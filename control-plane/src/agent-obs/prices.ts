import type { ModelPrice } from '../config/agent-obs.js';

/**
 * Built-in model prices, USD per million tokens (the providers' published list prices for
 * prompt/input and completion/output tokens; docs/api/agent-obs.md "Cost"). Operators replace or
 * extend them with VANTAGE_AGENT_OBS_PRICES; a model absent from both costs `budget_per_check_usd`.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o': { input_per_mtok_usd: 2.5, output_per_mtok_usd: 10 },
  'gpt-4o-mini': { input_per_mtok_usd: 0.15, output_per_mtok_usd: 0.6 },
  'gpt-4.1': { input_per_mtok_usd: 2, output_per_mtok_usd: 8 },
  'gpt-4.1-mini': { input_per_mtok_usd: 0.4, output_per_mtok_usd: 1.6 },
  'claude-3-5-haiku': { input_per_mtok_usd: 0.8, output_per_mtok_usd: 4 },
  'claude-3-5-sonnet': { input_per_mtok_usd: 3, output_per_mtok_usd: 15 },
  'claude-sonnet-4': { input_per_mtok_usd: 3, output_per_mtok_usd: 15 },
};

/** A price look-up: the model's price, or null when the table does not know it. */
export type PriceTable = (model: string) => ModelPrice | null;

/**
 * The price table of `overrides` (config `agent_obs_prices`) over {@link DEFAULT_MODEL_PRICES}.
 * A model is found by its exact name, else by the longest known name it starts with followed by
 * `-` (`gpt-4o-2024-08-06` → `gpt-4o`), so dated model versions share their family's price.
 */
export function priceTable(overrides: Record<string, ModelPrice>): PriceTable {
  const table = new Map(Object.entries({ ...DEFAULT_MODEL_PRICES, ...overrides }));
  const names = [...table.keys()].sort((a, b) => b.length - a.length);
  return (model) => {
    const exact = table.get(model);
    if (exact) return exact;
    const family = names.find((n) => model.startsWith(`${n}-`));
    return family ? table.get(family)! : null;
  };
}

/** How a check's cost was reached. */
export type CostBasis = 'tokens' | 'budget_per_check' | 'none';

/**
 * One check's cost in USD: prompt and completion tokens the endpoint reported times its model's
 * price (when the model is priced and a token count is known), else `budget_per_check_usd`, else
 * null (nothing to charge). Rounded to 1e-9 USD.
 */
export function checkCost(
  prices: PriceTable, usage: { model: string | null; prompt_tokens: number | null; completion_tokens: number | null }, budget_per_check_usd: number | null,
): { cost_usd: number | null; basis: CostBasis } {
  const price = usage.model ? prices(usage.model) : null;
  if (price && (usage.prompt_tokens !== null || usage.completion_tokens !== null)) {
    const usd = ((usage.prompt_tokens ?? 0) * price.input_per_mtok_usd + (usage.completion_tokens ?? 0) * price.output_per_mtok_usd) / 1_000_000;
    return { cost_usd: Math.round(usd * 1e9) / 1e9, basis: 'tokens' };
  }
  if (budget_per_check_usd !== null) return { cost_usd: budget_per_check_usd, basis: 'budget_per_check' };
  return { cost_usd: null, basis: 'none' };
}
