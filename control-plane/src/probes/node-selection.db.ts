import type { NodeSelection, ProbeType } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import type { ServedOwner } from '../nodes/sharing.js';

/** What node selection needs to know of a node (columns of 0010_nodes.sql). */
export interface CandidateNode {
  id: string;
  name: string;
  status: 'online' | 'offline' | 'disabled' | 'banned';
  owner_user_id: string | null;
  /** The team the node belongs to (0046; null: its enrolling account's personal node). */
  team_id: string | null;
  country: string | null;
  region: string | null;
  asn: number | null;
  provider: string | null;
  allow_private: boolean;
  /** A platform node (0037): trusted with every requester's secrets. */
  platform: boolean;
  /** Its owner lets other accounts' probes run on it (0045, nodes/sharing.ts). */
  shared: boolean;
  capabilities: string[];
  removed: boolean;
}

/** An owner as node rules compare it (nodes/sharing.ts sameOwner): the account, and the team (null: personal). */
export interface NodeOwner { user_id: string; team_id: string | null }

/**
 * The filters of an automatic pick: the probe type, `nodes` without `count`, the requester (only
 * nodes that serve it: nodes/sharing.ts mayServe; null: anonymous), the private-target owner, and
 * `secrets` when the request carries secret headers: only nodes that may hold
 * `secrets.requester`'s secrets (null: an anonymous requester).
 */
export interface CandidateFilter {
  probe_type: ProbeType;
  sel: Omit<NodeSelection, 'count'>;
  requester: ServedOwner | null;
  private_owner: NodeOwner | null;
  secrets: { requester: NodeOwner | null } | null;
}

/** SQL "the node has the same owner as `o`" (nodes/sharing.ts sameOwner, on the `nodes` columns). */
function sameOwnerSql(sql: Sql, o: NodeOwner) {
  return o.team_id !== null ? sql`team_id = ${o.team_id}` : sql`(team_id IS NULL AND owner_user_id = ${o.user_id})`;
}

/** One country's next pick: a random point `r` in [0,1) of the pick keys, ASNs and nodes it has already. */
export interface CountryPick {
  /** The country as indexed: its ISO code, or '' for nodes of unknown country. */
  country: string;
  r: number;
  used_asns: number[];
  picked: string[];
}

const COLUMNS = (sql: Sql) => sql`id, name, status, owner_user_id, team_id, country, region, asn, provider, allow_private, platform, shared, capabilities`;

/** The nodes with these ids (removed ones included, flagged), in no particular order. */
export async function nodesByIds(sql: Sql, ids: string[]): Promise<CandidateNode[]> {
  if (ids.length === 0) return [];
  return sql<CandidateNode[]>`
    SELECT ${COLUMNS(sql)}, removed_at IS NOT NULL AS removed
    FROM nodes WHERE id IN ${sql(ids)}`;
}

/**
 * The WHERE clause of a candidate: online, not removed (spelled literally so nodes_pick_idx, a
 * partial index on exactly that, applies), able to run the type (an empty capabilities list
 * counts as every type), and matching every non-empty filter ({@link windowWhere}).
 */
function candidateWhere(sql: Sql, f: CandidateFilter) {
  return sql`${windowWhere(sql, f)} AND (cardinality(capabilities) = 0 OR ${f.probe_type} = ANY(capabilities))`;
}

/**
 * A candidate but for the capability test: online, not removed, and every non-empty filter of
 * the selection: country in `countries`, region (ISO 3166-2 code or GeoIP state name,
 * case-insensitive) in `regions`, asn in `asns`, provider (case-insensitive) in `providers`,
 * every tag of `tags`; serving `requester` (shared, platform, the requester's own or its teams':
 * the pre-filter of nodes/sharing.ts mayServe, which select.ts applies to what is picked); with
 * `private_owner`, only that owner's nodes with allow_private (private targets,
 * docs/api/probes.md); with `secrets`, only platform nodes and the owner's own (the pre-filter of
 * secrets/node-trust.ts mayHoldSecretsOf, which select.ts applies to what is picked).
 */
function windowWhere(sql: Sql, f: CandidateFilter) {
  const { sel, requester, private_owner, secrets } = f;
  const regions = sel.regions.map((r) => r.toLowerCase());
  const providers = sel.providers.map((p) => p.toLowerCase());
  return sql`status = 'online' AND removed_at IS NULL
    ${sel.countries.length ? sql`AND country IN ${sql(sel.countries)}` : sql``}
    ${regions.length ? sql`AND lower(region) IN ${sql(regions)}` : sql``}
    ${sel.asns.length ? sql`AND asn IN ${sql(sel.asns)}` : sql``}
    ${providers.length ? sql`AND lower(provider) IN ${sql(providers)}` : sql``}
    ${sel.tags.length ? sql`AND tags @> ${sel.tags}::text[]` : sql``}
    ${requester === null ? sql`AND (shared OR platform)` : sql`AND (shared OR platform OR ${sameOwnerSql(sql, requester)} OR team_id = ANY(${[...(requester.member_of ?? [])]}::text[]))`}
    ${private_owner !== null ? sql`AND allow_private AND ${sameOwnerSql(sql, private_owner)}` : sql``}
    ${secrets === null ? sql`` : secrets.requester === null ? sql`AND platform` : sql`AND (platform OR ${sameOwnerSql(sql, secrets.requester)})`}`;
}

/** What a pick over every candidate needs of each: its id, country and ASN. */
export interface SpreadCandidate { id: string; country: string | null; asn: number | null }

/**
 * Every candidate node (see {@link candidateWhere}) as id, country and ASN: for picks as large as
 * the directory. The ids come as one string per country and ASN, so 10,000 candidates are a few
 * hundred rows: as rows of their own, with every column, they cost ~50 ms of this process's CPU.
 */
export async function spreadCandidates(sql: Sql, f: CandidateFilter): Promise<SpreadCandidate[]> {
  const rows = await sql<Array<{ country: string | null; asn: number | null; ids: string }>>`
    SELECT country, asn, string_agg(id, ',' ORDER BY id) AS ids FROM nodes WHERE ${candidateWhere(sql, f)}
    GROUP BY country, asn ORDER BY min(id)`;
  return rows.flatMap(({ country, asn, ids }) => ids.split(',').map((id) => ({ id, country, asn })));
}

/** Nodes read past a country's random point per pick: the pick is the first that qualifies among them. */
const PICK_WINDOW = 32;

/**
 * The window of candidates of country `c.country` at or after the pick key `c.r` (or, `wrap`,
 * before it: the wrap-around), read in pick-key order straight from nodes_pick_idx. `c` is the
 * outer row of the calling statement (columns country, r, used, picked).
 */
function pickWindow(sql: Sql, f: CandidateFilter, wrap: boolean) {
  return sql`
    (SELECT ${COLUMNS(sql)}, pick_key, ${wrap ? 1 : 0}::int AS wrapped FROM nodes
     WHERE ${windowWhere(sql, f)} AND country_key = c.country AND ${wrap ? sql`pick_key < c.r` : sql`pick_key >= c.r`}
     ORDER BY pick_key LIMIT ${PICK_WINDOW})`;
}

/** The pick of one row `c` among its window: the first able, not yet picked node, a new ASN first. */
function pickOne(sql: Sql, f: CandidateFilter) {
  return sql`
    SELECT * FROM (${pickWindow(sql, f, false)} UNION ALL ${pickWindow(sql, f, true)}) w
    WHERE (cardinality(w.capabilities) = 0 OR ${f.probe_type} = ANY(w.capabilities)) AND w.id <> ALL(c.picked)
    ORDER BY coalesce(w.asn, -1) = ANY(c.used), w.wrapped, w.pick_key LIMIT 1`;
}

/**
 * The tasks of a probe whose first round of picks is its whole answer, inserted by the pick
 * statement itself (one round trip for a 3-node probe: pick and insert). Task `i` (ordinal i) goes
 * to the pick at position i + 1; the group id is `ids[0]`. Columns as tasks.db.ts insertTasks
 * writes them; `allow_private` is true on a node of `private_user_id` that allows private targets
 * (probes/create.ts ownsPrivately).
 */
export interface FirstRoundTasks {
  /** One task id per pick, by ordinal. */
  ids: string[];
  probe_type: ProbeType;
  target: string;
  /** The check as stored (secret header values sealed). */
  check: unknown;
  timeout_ms: number;
  grace_ms: number;
  requester_user_id: string | null;
  /**
   * The owner whose nodes with allow_private let tasks reach private addresses (the requester, or
   * the monitor's owner for a monitor's run) when the credential may, else null.
   */
  private_owner: NodeOwner | null;
}

/** SQL "pick `p` has the same owner as `o`" (nodes/sharing.ts sameOwner); `o` null: false. */
function privateOwnerSql(sql: Sql, o: NodeOwner | null) {
  if (o === null) return sql`false`;
  return o.team_id !== null ? sql`p.team_id = ${o.team_id}` : sql`(p.team_id IS NULL AND p.owner_user_id = ${o.user_id})`;
}

/**
 * The countries that have at least one candidate ('' for unknown), found by skipping through
 * nodes_pick_idx (one index probe per country, however many nodes each holds), and the first
 * round of picks, in ONE statement: the countries shuffled by `seed` (sorted by a hash of the
 * country and the seed: a random seed gives a random order, one parameter however many countries)
 * and, unless more than `rounds_max` picks per country are needed, one node for each of the first
 * `count` of them as {@link pickInCountries} picks it, at the pick key `rs[position]`.
 * With `tasks`, the same statement inserts the probe's tasks when that round is the whole answer
 * (`count` picks found: at most one per country), and says so (`inserted`); otherwise nothing is
 * inserted and the caller goes on picking.
 * @returns the countries in shuffled order, and `{ i, node }` for each pick made (`i` indexes the
 *   countries; a country whose window had no node is missing)
 */
export async function countriesAndFirstPicks(
  sql: Sql, f: CandidateFilter, count: number, rounds_max: number, seed: string, rs: number[], tasks?: FirstRoundTasks,
): Promise<{ countries: string[]; found: Array<{ i: number; node: CandidateNode }>; inserted: boolean }> {
  const insert = tasks ? sql`, ins AS (
      INSERT INTO probe_tasks (id, group_id, ordinal, node_id, probe_type, target, "check", timeout_ms, requester_user_id, allow_private, deadline_at)
      SELECT (${tasks.ids}::text[])[p.pos], ${tasks.ids[0]!}, p.pos - 1, p.id, ${tasks.probe_type}, ${tasks.target}, ${sql.json(tasks.check as never)},
        ${tasks.timeout_ms}, ${tasks.requester_user_id}, coalesce(p.allow_private AND ${privateOwnerSql(sql, tasks.private_owner)}, false),
        now() + make_interval(secs => (${tasks.timeout_ms}::int + ${tasks.grace_ms}::int) / 1000.0)
      FROM picks p
      WHERE (SELECT count(*) FROM picks) = ${count}
      RETURNING id
    )` : sql``;
  const rows = await sql<Array<{ country_key: string; pos: number; id: string | null; inserted: number } & Omit<CandidateNode, 'id'>>>`
    WITH RECURSIVE k(country) AS (
      (SELECT country_key FROM nodes WHERE ${candidateWhere(sql, f)} ORDER BY country_key LIMIT 1)
      UNION ALL
      SELECT n.country FROM k CROSS JOIN LATERAL (
        SELECT country_key AS country FROM nodes
        WHERE ${candidateWhere(sql, f)} AND country_key > k.country
        ORDER BY country_key LIMIT 1) n
    ), shuffled AS (
      SELECT country, (row_number() OVER (ORDER BY hashtext(country || ':' || ${seed}::text), country))::int AS pos FROM k
    ), c AS (
      SELECT country, pos, (${rs}::float8[])[pos] AS r, '{}'::int[] AS used, '{}'::text[] AS picked FROM shuffled
    ), picks AS (
      SELECT c.pos, w.* FROM c CROSS JOIN LATERAL (${pickOne(sql, f)}) w
      WHERE c.pos <= ${count} AND (SELECT count(*) FROM c) * ${rounds_max} >= ${count}
    )${insert}
    SELECT s.country AS country_key, s.pos, p.id, p.name, p.status, p.owner_user_id, p.team_id, p.country, p.region, p.asn, p.provider, p.allow_private, p.platform, p.shared, p.capabilities, false AS removed,
      ${tasks ? sql`(SELECT count(*) FROM ins)::int` : sql`0`} AS inserted
    FROM c s LEFT JOIN picks p ON p.pos = s.pos
    ORDER BY s.pos`;
  return {
    countries: rows.map((r) => r.country_key),
    found: rows.flatMap(({ country_key: _key, pos, id, inserted: _inserted, ...node }) => (id === null ? [] : [{ i: pos - 1, node: { id, ...node } }])),
    inserted: (rows[0]?.inserted ?? 0) > 0,
  };
}

/**
 * One more node for each of `picks`, in one statement: among the first PICK_WINDOW candidates of
 * that country at or after the pick key `r` (wrapping around to the lowest keys), the first that
 * can run the type and was not picked yet, preferring an ASN the country has not given yet.
 * The window is read in pick-key order straight from nodes_pick_idx; the capability and "not
 * picked yet" tests are applied to the window only, because the planner cannot estimate them and,
 * inside the scan, they made it read and sort the whole country instead. A country without such
 * a node in its window is missing from the answer (the caller then reads every candidate).
 * @returns `{ i, node }` where `i` is the index into `picks`
 */
export async function pickInCountries(sql: Sql, f: CandidateFilter, picks: CountryPick[]): Promise<Array<{ i: number; node: CandidateNode }>> {
  if (picks.length === 0) return [];
  const rows = picks.map((p, i) => ({ i, country: p.country, r: p.r, used: p.used_asns, picked: p.picked }));
  const found = await sql<Array<CandidateNode & { i: number }>>`
    SELECT c.i, p.id, p.name, p.status, p.owner_user_id, p.team_id, p.country, p.region, p.asn, p.provider, p.allow_private, p.platform, p.shared, p.capabilities, false AS removed
    FROM jsonb_to_recordset(${sql.json(rows as never)}) AS c(i int, country text, r float8, used int[], picked text[])
    CROSS JOIN LATERAL (${pickOne(sql, f)}) p`;
  return found.map(({ i, ...node }) => ({ i, node }));
}
