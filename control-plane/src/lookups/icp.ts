import { getDomain } from 'tldts';
import { icpRecordInputSchema, normalizeDomain, type IcpFiling, type IcpRecordInput } from '@vantage/shared-protocol';
import type { IcpRow } from './icp.db.js';

/**
 * The registrable domain of a host name (Public Suffix List, ICANN section, through `tldts`):
 * `www.example.com.cn` → `example.com.cn`. Null for a public suffix itself (`com.cn`) or a name
 * that is not a domain.
 */
export function registrableDomain(name: string): string | null {
  const host = normalizeDomain(name);
  if (!host) return null;
  return getDomain(host, { allowPrivateDomains: false }) ?? null;
}

/** The filing answer for `domain` (a registrable domain): the record's fields, or nulls and a `note`. */
export function toFiling(domain: string, row: IcpRow | null): IcpFiling {
  if (!row) {
    return {
      domain, icp_number: null, company: null, license_type: null, type: null, filed_at: null, source: null, inquiry_url: null,
      note: `no ICP filing record for ${domain} in this deployment's ICP data set`,
    };
  }
  return { ...row, domain };
}

/** A record checked and keyed by its registrable domain; throws a message naming the field when it is not acceptable. */
export function toIcpRow(input: IcpRecordInput): IcpRow {
  const domain = registrableDomain(input.domain);
  if (!domain) throw new Error(`domain: ${input.domain} is not a registrable domain`);
  return {
    domain, icp_number: input.icp_number, company: input.company, license_type: input.license_type ?? null, type: input.type ?? null,
    filed_at: input.filed_at ?? null, source: input.source ?? null, inquiry_url: input.inquiry_url ?? null,
  };
}

/** Split CSV text into rows of fields (RFC 4180: quoted fields may hold commas, newlines and `""`). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') quoted = false; else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') { row.push(field); field = ''; } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field); field = '';
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
    } else field += ch;
  }
  row.push(field);
  if (row.length > 1 || row[0] !== '') rows.push(row);
  return rows;
}

/**
 * Parse an ICP import file (docs/api/lookups.md "ICP filing", import format): JSON Lines (one
 * record object a line) when the first non-blank character is `{`, else CSV with a header row
 * naming the columns (`domain`, `icp_number`, `company`, and optionally `license_type`, `type`,
 * `filed_at`, `source`, `inquiry_url`; empty cells are null). Every record is checked
 * ({@link icpRecordInputSchema}) and keyed by its registrable domain.
 * @throws Error naming the line and field of the first bad record
 */
export function parseIcpFile(text: string): IcpRow[] {
  const body = text.replace(/^\uFEFF/, '');
  const raw: Array<{ line: number; value: unknown }> = [];
  if (body.trimStart().startsWith('{')) {
    body.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      try { raw.push({ line: i + 1, value: JSON.parse(line) }); } catch { throw new Error(`line ${i + 1}: not a JSON object`); }
    });
  } else {
    const [header, ...rows] = parseCsv(body);
    if (!header) return [];
    const names = header.map((h) => h.trim().toLowerCase());
    rows.forEach((cells, i) => {
      const value: Record<string, string | null> = {};
      names.forEach((name, j) => { const cell = cells[j]?.trim() ?? ''; value[name] = cell === '' ? null : cell; });
      raw.push({ line: i + 2, value });
    });
  }
  return raw.map(({ line, value }) => {
    const parsed = icpRecordInputSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`line ${line}: ${issue.path.join('.') || 'record'}: ${issue.message}`);
    }
    try { return toIcpRow(parsed.data); } catch (err) { throw new Error(`line ${line}: ${(err as Error).message}`); }
  });
}
