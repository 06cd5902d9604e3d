import { readFile } from 'node:fs/promises';

/**
 * IP → ASN lookup over the @ip-location-db/asn "num" CSV files (rows `start,end,asn,organisation`,
 * start/end as decimal integers, sorted by start, non-overlapping). Loaded once into typed arrays
 * and searched with a binary search: IPv4 in Uint32Arrays, IPv6 as (hi, lo) BigUint64Array pairs.
 * Organisation names are interned (one string per distinct organisation).
 */
export interface AsnTable {
  /** `{asn, org}` of the range holding `ip`, or null. `ip` is the address as an unsigned integer. */
  find(ip: bigint): { asn: number; org: string } | null;
  readonly rows: number;
}

interface Row { start: bigint; end: bigint; asn: number; org: string }

/** Split one CSV row: three plain fields, then the organisation (maybe quoted, `""` escapes). */
function parseRow(line: string): Row | null {
  const a = line.indexOf(',');
  const b = line.indexOf(',', a + 1);
  const c = line.indexOf(',', b + 1);
  if (a < 0 || b < 0 || c < 0) return null;
  let org = line.slice(c + 1);
  if (org.startsWith('"')) org = org.slice(1, org.endsWith('"') ? -1 : undefined).replace(/""/g, '"');
  const asn = Number(line.slice(b + 1, c));
  if (!Number.isInteger(asn)) return null;
  try {
    return { start: BigInt(line.slice(0, a)), end: BigInt(line.slice(a + 1, b)), asn, org };
  } catch {
    return null;
  }
}

const MASK64 = (1n << 64n) - 1n;

/**
 * Load an ASN CSV file into a searchable table.
 * @param path   the `asn-ipv4-num.csv` or `asn-ipv6-num.csv` file
 * @param family 4 or 6 (selects 32-bit or 128-bit storage)
 * @throws when the file cannot be read
 */
export async function loadAsnTable(path: string, family: 4 | 6): Promise<AsnTable> {
  const text = await readFile(path, 'utf8');
  const lines = text.split('\n');
  const orgIndex = new Map<string, number>();
  const orgs: string[] = [];
  const asns = new Uint32Array(lines.length);
  const orgOf = new Uint32Array(lines.length);
  const starts4 = family === 4 ? new Uint32Array(lines.length) : null;
  const ends4 = family === 4 ? new Uint32Array(lines.length) : null;
  const starts6 = family === 6 ? new BigUint64Array(lines.length * 2) : null;
  const ends6 = family === 6 ? new BigUint64Array(lines.length * 2) : null;
  let n = 0;
  for (const line of lines) {
    const row = line ? parseRow(line) : null;
    if (!row) continue;
    let org = orgIndex.get(row.org);
    if (org === undefined) {
      org = orgs.push(row.org) - 1;
      orgIndex.set(row.org, org);
    }
    asns[n] = row.asn;
    orgOf[n] = org;
    if (starts4 && ends4) {
      starts4[n] = Number(row.start);
      ends4[n] = Number(row.end);
    } else if (starts6 && ends6) {
      starts6[2 * n] = row.start >> 64n;
      starts6[2 * n + 1] = row.start & MASK64;
      ends6[2 * n] = row.end >> 64n;
      ends6[2 * n + 1] = row.end & MASK64;
    }
    n++;
  }
  const startAt = (i: number): bigint =>
    starts4 ? BigInt(starts4[i]!) : (starts6![2 * i]! << 64n) | starts6![2 * i + 1]!;
  const endAt = (i: number): bigint =>
    ends4 ? BigInt(ends4[i]!) : (ends6![2 * i]! << 64n) | ends6![2 * i + 1]!;
  return {
    rows: n,
    find(ip) {
      // Last row whose start <= ip.
      let lo = 0;
      let hi = n - 1;
      let hit = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        if (startAt(mid) <= ip) {
          hit = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      if (hit < 0 || endAt(hit) < ip) return null;
      return { asn: asns[hit]!, org: orgs[orgOf[hit]!]! };
    },
  };
}
