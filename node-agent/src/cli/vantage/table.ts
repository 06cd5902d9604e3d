import Table from 'cli-table3';

/** Rows as a plain-bordered table (cli-table3, already the agent's table library). Cells are stringified; null shows as `-`. */
export function renderTable(head: string[], rows: unknown[][]): string {
  const table = new Table({ head, style: { head: [], border: [] } });
  for (const r of rows) table.push(r.map((c) => (c === null || c === undefined ? '-' : String(c))));
  return table.toString();
}
