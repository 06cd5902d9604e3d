import type { Sql } from '../db/sql.js';

/** One stored ICP filing record (icp_records), `filed_at` as `YYYY-MM-DD`. */
export interface IcpRow {
  domain: string;
  icp_number: string;
  company: string;
  license_type: string | null;
  type: string | null;
  filed_at: string | null;
  source: string | null;
  inquiry_url: string | null;
}

const COLUMNS = ['domain', 'icp_number', 'company', 'license_type', 'type', 'filed_at', 'source', 'inquiry_url'] as const;

/**
 * Store records (one per registrable domain; a later record of the same domain replaces the
 * earlier), in one transaction; `replace` first empties the set, so the import is the whole set.
 * @returns the records written and the set's size after the import
 */
export async function importIcpRecords(sql: Sql, rows: IcpRow[], replace: boolean): Promise<{ imported: number; total: number }> {
  const byDomain = new Map(rows.map((r) => [r.domain, r]));
  const unique = [...byDomain.values()];
  return sql.begin(async (tx) => {
    if (replace) await tx`DELETE FROM icp_records`;
    for (let i = 0; i < unique.length; i += 1000) {
      const chunk = unique.slice(i, i + 1000);
      await tx`
        INSERT INTO icp_records ${tx(chunk as unknown as Record<string, unknown>[], ...COLUMNS)}
        ON CONFLICT (domain) DO UPDATE SET
          icp_number = EXCLUDED.icp_number, company = EXCLUDED.company, license_type = EXCLUDED.license_type,
          type = EXCLUDED.type, filed_at = EXCLUDED.filed_at, source = EXCLUDED.source,
          inquiry_url = EXCLUDED.inquiry_url, imported_at = now()`;
    }
    const [row] = await tx<{ total: number }[]>`SELECT count(*)::int AS total FROM icp_records`;
    return { imported: unique.length, total: row!.total };
  });
}

/** The record of a registrable domain (lower case), or null. */
export async function findIcpRecord(sql: Sql, domain: string): Promise<IcpRow | null> {
  const [row] = await sql<IcpRow[]>`
    SELECT domain, icp_number, company, license_type, type, to_char(filed_at, 'YYYY-MM-DD') AS filed_at, source, inquiry_url
    FROM icp_records WHERE domain = ${domain}`;
  return row ?? null;
}
