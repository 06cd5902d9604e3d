import type { COMBO_WORD_LISTS } from '@vantage/shared-protocol';

/*
 * The word lists a `word` slot draws from (docs/api/domains.md "Slots"): short, common English
 * words that read well in a name, lower-case a-z only, each list sorted and without repeats (the
 * order of a preview's names follows it).
 */

const RAW: Record<(typeof COMBO_WORD_LISTS)[number], string> = {
  tech: `app api bit byte cache cloud code core data dev edge flow grid hub link logic mesh net node
    ops pixel port probe query ring route scale shell sig signal snap stack stream sync tech wave web wire zone`,
  nature: `ash bay bloom brook cedar cliff cloud coral creek dawn dune elm fern field frost grove hill
    lake leaf maple meadow moss oak ocean peak pine rain reef ridge river rock sky snow stone storm sun tide vale wind wood`,
  color: `amber aqua azure black blue bronze coral cream cyan gold gray green indigo ivory jade lemon
    lilac lime mint navy olive onyx orange pearl pink plum red rose ruby sage silver teal violet white`,
};

/** Each list: sorted, unique words. */
export const WORD_LISTS: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries(RAW).map(([name, text]) => [name, [...new Set(text.split(/\s+/).filter(Boolean))].sort()]),
);
