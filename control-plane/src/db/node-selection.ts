import type { NodeSelection, ProbeType } from '@vantage/shared-protocol';
import type { Sql } from './sql.js';

/** What node selection needs to know of a node (columns of 0010_nodes.sql). */
export interface CandidateNode {
  id: string;
  name: string;
  status: 'online' | 'offline' | 'disabled' | 'banned';
  owner_user_id: string | null;
  country: string | null;
  region: string | null;
  asn: number | null;
  provider: string | null;
  allow_private: boolean;
  capabilities: string[];
  removed: boolean;
}

/** The nodes with these ids (removed ones included, flagged), in no particular order. */
export async function nodesByIds(sql: Sql, ids: string[]): Promise<CandidateNode[]> {
  if (ids.length === 0) return [];
  return sql<CandidateNode[]>`
    SELECT id, name, status, owner_user_id, country, region, asn, provider, allow_private, capabilities,
      removed_at IS NOT NULL AS removed
    FROM nodes WHERE id IN ${sql(ids)}`;
}

/**
 * Online, not removed nodes that can run `probe_type` (an empty capabilities list counts as
 * every type) and match every non-empty filter of `sel`: country in `countries`, region (ISO
 * 3166-2 code or GeoIP state name, case-insensitive) in `regions`, asn in `asns`, provider
 * (case-insensitive) in `providers`, and every tag of `tags`. With `private_owner` set, only that
 * user's nodes with allow_private (private targets, docs/api/probes.md).
 */
export async function onlineCandidates(sql: Sql, probe_type: ProbeType, sel: Omit<NodeSelection, 'count'>, private_owner: string | null): Promise<CandidateNode[]> {
  const regions = sel.regions.map((r) => r.toLowerCase());
  const providers = sel.providers.map((p) => p.toLowerCase());
  return sql<CandidateNode[]>`
    SELECT id, name, status, owner_user_id, country, region, asn, provider, allow_private, capabilities, false AS removed
    FROM nodes
    WHERE status = 'online' AND removed_at IS NULL
      AND (cardinality(capabilities) = 0 OR ${probe_type} = ANY(capabilities))
      ${sel.countries.length ? sql`AND country IN ${sql(sel.countries)}` : sql``}
      ${regions.length ? sql`AND lower(region) IN ${sql(regions)}` : sql``}
      ${sel.asns.length ? sql`AND asn IN ${sql(sel.asns)}` : sql``}
      ${providers.length ? sql`AND lower(provider) IN ${sql(providers)}` : sql``}
      ${sel.tags.length ? sql`AND tags @> ${sel.tags}::text[]` : sql``}
      ${private_owner !== null ? sql`AND allow_private AND owner_user_id = ${private_owner}` : sql``}
    ORDER BY id`;
}
