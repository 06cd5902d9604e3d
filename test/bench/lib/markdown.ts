/**
 * The one shape every benchmark figure takes in bench/out/bench.md, and Markdown in and out.
 * Columns: figure | ours | peer (same run) | goal | ratio/difference.
 */

/** One measured figure. Empty strings where there is no peer, goal or comparison. */
export interface Figure {
  figure: string;
  ours: string;
  /** The same quantity measured by a peer tool (iputils ping, curl, dig) in the same run. */
  peer: string;
  goal: string;
  /** ours − peer, or ours / peer, as the script computed it. */
  difference: string;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A Markdown table of `figures` under the five standard headers. */
export function figuresTable(figures: Figure[]): string {
  const lines = ['| figure | ours | peer (same run) | goal | ratio/difference |', '|---|---|---|---|---|'];
  for (const f of figures) lines.push(`| ${[f.figure, f.ours, f.peer, f.goal, f.difference].map(cell).join(' | ')} |`);
  return lines.join('\n');
}

/** Split one Markdown table row into trimmed cells (`\|` stays inside a cell). */
function splitRow(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

/**
 * Every Markdown table in `text`: `{ headers, rows }` with cells as strings. A table is a header
 * row, a `|---|` separator, then rows, each starting with `|`.
 */
export function parseMarkdownTables(text: string): Array<{ headers: string[]; rows: string[][] }> {
  const lines = text.split('\n');
  const tables: Array<{ headers: string[]; rows: string[][] }> = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|') || !/^\s*\|?\s*:?-{3,}/.test(lines[i + 1]!)) continue;
    const headers = splitRow(lines[i]!);
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j]!.trim().startsWith('|'); j++) rows.push(splitRow(lines[j]!));
    tables.push({ headers, rows });
    i = j - 1;
  }
  return tables;
}

/**
 * Figures from tables with the probe benchmarks' columns `measure | ours | <peer> | difference |
 * goal` (test/bench/probe-bench-*.ts, e2e-bench.ts). The peer's header is kept in `peer_name`.
 * @throws Error when `text` holds no such table (the script's output changed shape)
 */
export function figuresFromProbeTables(text: string): { figures: Figure[]; peer_names: string[] } {
  const tables = parseMarkdownTables(text).filter((t) => t.headers.length === 5);
  if (tables.length === 0) throw new Error('no five-column Markdown table in the output');
  const figures: Figure[] = [];
  for (const t of tables) {
    for (const [figure = '', ours = '', peer = '', difference = '', goal = ''] of t.rows) figures.push({ figure, ours, peer, goal, difference });
  }
  return { figures, peer_names: tables.map((t) => t.headers[2]!) };
}
