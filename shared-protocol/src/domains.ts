import { z } from 'zod';

/**
 * Domain combinations (docs/api/domains.md): a spec of slots and top-level domains, and the
 * preview of the names it makes.
 */

/** Slot kinds: digits, letters, a word from a shipped list, or fixed text. */
export const COMBO_SLOT_KINDS = ['number', 'letter', 'word', 'literal'] as const;
export type ComboSlotKind = (typeof COMBO_SLOT_KINDS)[number];

/** Word lists a `word` slot may name in `variant` (docs/api/domains.md "Slots"). */
export const COMBO_WORD_LISTS = ['tech', 'nature', 'color'] as const;

/** `cap` when absent or <= 0, and its ceiling (docs/api/domains.md). */
export const COMBO_CAP_DEFAULT = 1000;
export const COMBO_CAP_MAX = 5000;
/** Most slots, top-level domains and names checked for availability in one preview. */
export const COMBO_SLOTS_MAX = 8;
export const COMBO_TLDS_MAX = 50;
export const COMBO_AVAILABILITY_MAX = 10;
/** Longest DNS label (RFC 1035 2.3.4): a spec whose longest name label exceeds it is refused. */
export const DNS_LABEL_MAX = 63;

const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * One slot. `number`: `variant` = digits `1`-`6` (default `1`). `letter`: `variant` = letters
 * `1`-`6` (default `1`), or `vowel` / `consonant` (one letter). `word`: `variant` = a word list of
 * {@link COMBO_WORD_LISTS} (default `tech`). `literal`: `literal` = fixed text (lower-case letters,
 * digits, single inner hyphens), no variant.
 * @example { "kind": "letter", "variant": "2" }
 */
export const comboSlotSchema = z.strictObject({
  kind: z.enum(COMBO_SLOT_KINDS),
  variant: z.string().max(32).optional(),
  literal: z.string().max(DNS_LABEL_MAX).optional(),
});
export type ComboSlot = z.infer<typeof comboSlotSchema>;

/**
 * `POST /v1/domains/combos/preview` body (docs/api/domains.md). `tlds` without the dot (lower-cased,
 * repeats dropped); `exclude`: characters, any slot token containing one is dropped; `cap` <= 0 or
 * absent → 1000, above 5000 → 5000; `check_availability`: ask the registries (RDAP) about up to 10
 * names of the sample.
 * @example { "slots": [{ "kind": "word", "variant": "tech" }, { "kind": "number", "variant": "2" }], "tlds": ["com", "io"], "exclude": "4", "cap": 100 }
 */
export const domainComboSpecSchema = z.strictObject({
  slots: z.array(comboSlotSchema).min(1).max(COMBO_SLOTS_MAX),
  tlds: z.array(z.string().trim().toLowerCase().regex(LDH_LABEL, 'a top-level domain without the dot: letters, digits, inner hyphens')).min(1).max(COMBO_TLDS_MAX),
  exclude: z.string().max(64).optional(),
  cap: z.number().int().optional(),
  check_availability: z.boolean().optional(),
});
export type DomainComboSpec = z.infer<typeof domainComboSpecSchema>;

/** RDAP's answer about one sampled name: `available` (the registry has no such name), `registered`, or `unknown` (no registry answered; `detail` says why). */
export const comboAvailabilitySchema = z.object({
  domain: z.string(),
  status: z.enum(['available', 'registered', 'unknown']),
  detail: z.string().nullable(),
});

/**
 * The preview: `total` names the spec makes (exact; a JSON number, so beyond 2^53 - 1 the nearest
 * double: `total_exact` is the exact decimal), `effective` = min(total, cap), `capped` =
 * total > cap, `sample[]` = `effective` names drawn evenly over all of them (every name when not
 * capped), `availability[]` only when asked.
 * @example { "total": 400, "total_exact": "400", "effective": 100, "capped": true, "sample": ["cloud00.com", "cloud02.com"] }
 */
export const domainComboPreviewSchema = z.object({
  total: z.number().int(),
  total_exact: z.string(),
  effective: z.number().int(),
  capped: z.boolean(),
  cap: z.number().int(),
  sample: z.array(z.string()),
  availability: z.array(comboAvailabilitySchema).optional(),
});
export type DomainComboPreview = z.infer<typeof domainComboPreviewSchema>;
