/*
 * Slot predictions of packed check blocks (format 2, checks/pack-codec.ts): values of an output
 * that follow, exactly or nearly, from other values of the same output. A block stores such a
 * slot as its differences from the prediction (pack-columns.ts emitColumn, `%`) when that is
 * smaller than the values or their steps: a ping's rtt_min_ms is the least of its packets' rtt_ms,
 * so its column becomes zeros and costs nothing. A prediction only has to be the same on both
 * sides, never right: decoding adds the stored difference back, so what is read is what was
 * written whatever the output holds. NEVER change a rule or the order of RULES: stored blocks
 * of format 2 decode only with exactly these predictions; a new rule is a new format.
 */

/** A leaf's keys and array indices from the document's root. */
export type Path = Array<string | number>;

/** One prediction: the slots matching `slot` predicted from the known numbers of the slots matching `from`. */
interface SlotRule {
  /** Keys and indices joined by '.', '*' for any one of them. */
  slot: string;
  from: string;
  /** The prediction from the numbers of the `from` slots already known (document order), null for none. */
  predict(xs: number[]): number | null;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The rules, in the order their slots are stored (a rule sees the slots of earlier rules, the
 * slots of no rule, and its own earlier slots). Ping (node-agent/src/probes/ping.ts): the replies
 * of one run cross the same path, so each rtt_ms is near the one answered before it;
 * rtt_min_ms / rtt_max_ms are the least and greatest rtt_ms (both rounded to the µs the same
 * way); rtt_avg_ms and rtt_stddev_ms (iputils' mdev) are computed by the node from the unrounded
 * rtts, so the rounded ones predict them within a µs or two.
 */
const RULES: SlotRule[] = [
  { slot: 'packets.*.rtt_ms', from: 'packets.*.rtt_ms', predict: (xs) => (xs.length > 0 ? xs[xs.length - 1]! : null) },
  { slot: 'rtt_min_ms', from: 'packets.*.rtt_ms', predict: (xs) => (xs.length > 0 ? Math.min(...xs) : null) },
  { slot: 'rtt_max_ms', from: 'packets.*.rtt_ms', predict: (xs) => (xs.length > 0 ? Math.max(...xs) : null) },
  { slot: 'rtt_avg_ms', from: 'packets.*.rtt_ms', predict: (xs) => (xs.length > 0 ? mean(xs) : null) },
  {
    slot: 'rtt_stddev_ms', from: 'packets.*.rtt_ms',
    predict: (xs) => {
      if (xs.length === 0) return null;
      // Products and sqrt only: IEEE 754 rounds them exactly alike everywhere (`**` goes through pow, whose last bit is the engine's).
      const m = mean(xs);
      return Math.sqrt(Math.max(0, mean(xs.map((x) => x * x)) - m * m));
    },
  },
];
const PATTERNS = RULES.map((r) => ({ slot: r.slot.split('.'), from: r.from.split('.') }));

function matches(pattern: string[], path: Path): boolean {
  return pattern.length === path.length && pattern.every((p, i) => p === '*' || p === String(path[i]));
}

/** How the slots of one shape are stored: in `order`, and how each predicted slot is predicted. */
export interface SlotPlan {
  /** Slot numbers (document order of the shape's leaves) in the order their columns are stored. */
  order: number[];
  /** The prediction of slot s for one document, from its slots decoded before s; undefined: s has no rule. */
  predictors: Array<((row: Array<number | string | null | undefined>) => number | null) | undefined>;
}

/**
 * The plan of a shape whose leaves have `paths` and `kinds` (document order): slots of no rule
 * first, in document order, then each rule's number slots in RULES order; with `rules` false
 * (format 1), document order and no predictions.
 */
export function planSlots(paths: Path[], kinds: Array<'number' | 'string'>, rules: boolean): SlotPlan {
  const ruleOf = paths.map((p, s) => (rules && kinds[s] === 'number' ? PATTERNS.findIndex((r) => matches(r.slot, p)) : -1));
  const order = [...paths.keys()].filter((s) => ruleOf[s] === -1);
  for (let r = 0; r < RULES.length; r++) order.push(...[...paths.keys()].filter((s) => ruleOf[s] === r));
  const position = new Map(order.map((s, i) => [s, i]));
  const predictors = paths.map((_, s) => {
    const r = ruleOf[s]!;
    if (r === -1) return undefined;
    const sources = [...paths.keys()].filter((f) => kinds[f] === 'number' && position.get(f)! < position.get(s)! && matches(PATTERNS[r]!.from, paths[f]!));
    const rule = RULES[r]!;
    return (row: Array<number | string | null | undefined>) => {
      const xs: number[] = [];
      for (const f of sources) if (typeof row[f] === 'number') xs.push(row[f]);
      return rule.predict(xs);
    };
  });
  return { order, predictors };
}
