import { nodeSelectionSchema, type NodeSelection, type ProbeType } from '@vantage/shared-protocol';
import { countriesAndFirstPicks, nodesByIds, pickInCountries, spreadCandidates, type CandidateFilter, type CandidateNode, type FirstRoundTasks, type NodeOwner } from './node-selection.db.js';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { mayHoldSecretsOf } from '../secrets/node-trust.js';
import { mayServe, sameOwner, type ServedOwner } from '../nodes/sharing.js';

function shuffle<T>(items: T[], random: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

function groupBy<T>(items: T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}

/** Round-robin over lists: first of each, then second of each, … */
function interleave<T>(lists: T[][]): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < lists.reduce((n, l) => n + l.length, 0); i++) {
    for (const l of lists) if (i < l.length) out.push(l[i]!);
  }
  return out;
}

/**
 * Pick up to `count` nodes spread across countries, then networks: countries are
 * visited round-robin in random order; within a country, ASNs round-robin in random order; nodes
 * of one ASN in random order. So 3 picks from nodes in 3 countries take one per country, and a
 * second node of a country comes from another ASN when there is one. Unknown country / ASN count
 * as a group of their own.
 * @param random a [0,1) source (tests pass a seeded one)
 */
export function spreadPick<T extends { country: string | null; asn: number | null }>(candidates: T[], count: number, random: () => number = Math.random): T[] {
  const countries = shuffle(groupBy(candidates, (n) => n.country ?? '?'), random);
  const perCountry = countries.map((nodes) => interleave(shuffle(groupBy(nodes, (n) => String(n.asn ?? '?')), random).map((g) => shuffle(g, random))));
  return interleave(perCountry).slice(0, count);
}

/** `nodes` when a request names neither nodes nor a selection: `{count: 3}` and no filter (read-only). */
const DEFAULT_SELECTION: NodeSelection = Object.freeze(nodeSelectionSchema.parse({}));

/** The probe request's node fields (docs/api/probes.md `node_ids`, `node_id`, `nodes`). */
export interface NodeRequest {
  node_ids?: string[] | undefined;
  node_id?: string | undefined;
  nodes?: NodeSelection | undefined;
}

/** What the request itself allows of its nodes (docs/api/probes.md "Target safety", "Node selection"). */
export interface PickLimits {
  /**
   * Whom the nodes work for (null: anonymous): only nodes that serve it qualify, its own, its
   * teams' (`member_of`), shared and platform nodes (nodes/sharing.ts mayServe; docs/api/nodes.md
   * "Sharing"). A monitor's run: the monitor's owner.
   */
  requester: ServedOwner | null;
  /**
   * A private target, by an authenticated caller: only nodes of this owner (nodes/sharing.ts
   * sameOwner: the caller's personal nodes, or a team monitor's team's nodes) with allow_private.
   */
  private_owner: NodeOwner | null;
  /**
   * The request headers carry secrets (`headers`: their names): only nodes that may hold the
   * secrets of `requester` (secrets/node-trust.ts mayHoldSecretsOf; null = anonymous: platform
   * nodes only).
   */
  secrets: { headers: string[]; requester: NodeOwner | null } | null;
}

/** No limit beyond the selection and sharing: an anonymous request for a public target, no secret header. */
export const NO_LIMITS: PickLimits = Object.freeze({ requester: null, private_owner: null, secrets: null });

/** Where secrets go for `requester`, in words. */
function trustedWords(requester: NodeOwner | null): string {
  if (requester === null) return 'platform nodes';
  return requester.team_id === null ? 'your own nodes and to platform nodes' : `the nodes of team ${requester.team_id} and to platform nodes`;
}

/**
 * Choose the nodes of a probe (docs/api/probes.md "Node selection"):
 * - `node_ids` and/or `node_id` (deduplicated): unknown or removed ids → 404 NODE_NOT_FOUND
 *   (`details.node_ids`); any not online → 503 NODE_OFFLINE (`details.node_ids`); a node whose
 *   agent lacks the probe type → 400 VALIDATION_FAILED.
 * - else `nodes` {count, countries, regions, asns, providers, tags}, else `{count: 3}`: online
 *   matching nodes spread across countries, then ASNs ({@link indexedPick}, else
 *   {@link spreadPick} over every candidate); none → 422 PROBE_TOO_FEW_NODES; fewer than
 *   `count` → all of them.
 * Only nodes that serve `limits.requester` qualify (its own, its teams', shared and platform nodes;
 * nodes/sharing.ts mayServe); a named node that does not → 403 FORBIDDEN (`details.node_ids`).
 * With `limits.private_owner` (an authenticated caller probing a private target) only that owner's
 * nodes with allow_private qualify; an explicit node that does not → 422 PROBE_TARGET_INVALID.
 * With `limits.secrets` (secret request headers) only nodes that may hold the requester's secrets
 * qualify (mayHoldSecretsOf decides, for every node chosen); an explicit node that may not → 403
 * FORBIDDEN (`details.node_ids`, `details.headers`), no automatic candidate → 422
 * PROBE_TOO_FEW_NODES (`details.headers`).
 */
export async function selectNodes(sql: Sql, type: ProbeType, req: NodeRequest, limits: PickLimits = NO_LIMITS, random: () => number = Math.random): Promise<CandidateNode[]> {
  return (await selectNodesInserting(sql, type, req, limits, random)).nodes;
}

/** Automatic picks of at most this many nodes may insert their tasks in the pick statement. */
export const FIRST_ROUND_INSERT_MAX = 16;

/**
 * {@link selectNodes}, and for an automatic pick of at most FIRST_ROUND_INSERT_MAX nodes whose
 * first round of picks is the whole answer (at most one node per country), the probe's tasks
 * inserted by the same statement (node-selection.db.ts countriesAndFirstPicks): `tasks(count)`
 * gives them for `count` picks. `inserted` is those tasks when that happened (task i went to
 * `nodes[i]`), else null and the caller inserts them. A request with secret headers never
 * inserts with its pick: its nodes pass mayHoldSecretsOf before any task exists.
 */
export async function selectNodesInserting(
  sql: Sql, type: ProbeType, req: NodeRequest, limits: PickLimits = NO_LIMITS, random: () => number = Math.random,
  tasks?: (count: number) => FirstRoundTasks,
): Promise<{ nodes: CandidateNode[]; inserted: FirstRoundTasks | null }> {
  const { requester, private_owner, secrets } = limits;
  const explicit = [...new Set([...(req.node_ids ?? []), ...(req.node_id ? [req.node_id] : [])])];
  if (explicit.length > 0) {
    const found = new Map((await nodesByIds(sql, explicit)).filter((n) => !n.removed).map((n) => [n.id, n]));
    const missing = explicit.filter((id) => !found.has(id));
    if (missing.length) throw new ApiError('NODE_NOT_FOUND', `unknown node: ${missing.slice(0, 5).join(', ')}`, { node_ids: missing });
    const nodes = explicit.map((id) => found.get(id)!);
    const closed = nodes.filter((n) => !mayServe(n, requester));
    if (closed.length) {
      throw new ApiError('FORBIDDEN', `node ${closed[0]!.id} runs only its owner's probes: it is not shared and not a platform node`, { node_ids: closed.map((n) => n.id) });
    }
    const offline = nodes.filter((n) => n.status !== 'online');
    if (offline.length) throw new ApiError('NODE_OFFLINE', `node not online: ${offline.slice(0, 5).map((n) => `${n.id} (${n.status})`).join(', ')}`, { node_ids: offline.map((n) => n.id) });
    const unable = nodes.filter((n) => n.capabilities.length > 0 && !n.capabilities.includes(type));
    if (unable.length) throw new ApiError('VALIDATION_FAILED', `node cannot run ${type} probes: ${unable[0]!.id}`, { fields: [{ path: 'node_ids', message: `no ${type} capability` }] });
    if (private_owner !== null) {
      const refused = nodes.filter((n) => !n.allow_private || !sameOwner(n, private_owner));
      const whose = private_owner.team_id === null ? 'your own nodes' : `the nodes of team ${private_owner.team_id}`;
      if (refused.length) throw new ApiError('PROBE_TARGET_INVALID', `private targets run only on ${whose} that allow them; ${refused[0]!.id} does not`, { node_ids: refused.map((n) => n.id) });
    }
    const untrusted = secrets ? nodes.filter((n) => !mayHoldSecretsOf(n, secrets.requester)) : [];
    if (secrets && untrusted.length) {
      throw new ApiError('FORBIDDEN', `the request headers ${secrets.headers.join(', ')} carry secrets, which are sent only to ${trustedWords(secrets.requester)}; ${untrusted[0]!.id} is not one`,
        { node_ids: untrusted.map((n) => n.id), headers: secrets.headers });
    }
    return { nodes, inserted: null };
  }
  const selection = req.nodes ?? DEFAULT_SELECTION;
  const filter: CandidateFilter = { probe_type: type, sel: selection, requester, private_owner, secrets: secrets && { requester: secrets.requester } };
  const first_round = tasks && !secrets && selection.count <= FIRST_ROUND_INSERT_MAX ? tasks(selection.count) : undefined;
  const indexed = await indexedPick(sql, filter, selection.count, random, first_round);
  if (indexed?.inserted && first_round) return { nodes: indexed.nodes, inserted: first_round };
  const found = indexed?.nodes ?? (await fullPick(sql, filter, selection.count, random));
  // The filter above only narrows the candidates: the rules themselves decide for every node picked.
  const served = found.filter((n) => mayServe(n, requester));
  const picked = secrets ? served.filter((n) => mayHoldSecretsOf(n, secrets.requester)) : served;
  if (picked.length === 0) {
    if (private_owner !== null) {
      throw new ApiError('PROBE_TARGET_INVALID', `the target is private and none of ${private_owner.team_id === null ? 'your' : `team ${private_owner.team_id}'s`} online nodes allows private targets`);
    }
    if (secrets) {
      throw new ApiError('PROBE_TOO_FEW_NODES', `the request headers ${secrets.headers.join(', ')} carry secrets, which are sent only to ${trustedWords(secrets.requester)}, and no such online node matches the selection for ${type} probes`,
        { headers: secrets.headers });
    }
    throw new ApiError('PROBE_TOO_FEW_NODES', requester === null
      ? `no online shared or platform node matches the selection for ${type} probes`
      : `no online node that serves you (your own, your teams', shared or platform nodes) matches the selection for ${type} probes`);
  }
  return { nodes: picked, inserted: null };
}

/**
 * {@link spreadPick} over every candidate (read as id, country and ASN only), then the picked
 * nodes' rows; a node removed in between is left out.
 */
async function fullPick(sql: Sql, filter: CandidateFilter, count: number, random: () => number): Promise<CandidateNode[]> {
  const picked = spreadPick(await spreadCandidates(sql, filter), count, random);
  const rows = new Map((await nodesByIds(sql, picked.map((n) => n.id))).map((n) => [n.id, n]));
  return picked.flatMap((n) => {
    const row = rows.get(n.id);
    return row && !row.removed ? [row] : [];
  });
}

/** Rounds of {@link indexedPick} (picks per country) beyond which reading every candidate once is cheaper. */
const INDEXED_ROUNDS_MAX = 4;
/** More than the country codes there are (ISO 3166-1 has 249, and '' stands for unknown). */
const COUNTRIES_MAX = 300;

/**
 * The automatic pick without reading every online node (the work grows with the number of
 * countries and of picks, not of nodes; migration 0019): list the candidates' countries by
 * skipping through nodes_pick_idx, visit them in random order and give each its share of `count`
 * (round-robin), one round per pick: a country's node is the first candidate at or after a random
 * pick key, preferring an ASN that country has not given yet. The countries and the first round
 * come from one statement (countriesAndFirstPicks), so a pick of at most one node per country
 * (3 nodes among 9 countries) is one round trip. The answer is ordered as {@link spreadPick}
 * orders its own (countries round-robin).
 * With `first_round`, the first statement also inserts those tasks when its round is the whole
 * answer (`inserted`: then the nodes are in task order).
 * @returns the nodes, [] when there is no candidate, or null when the pick needs every
 *   candidate: more than INDEXED_ROUNDS_MAX picks per country, or a country ran out of nodes
 *   before its share (then {@link spreadPick} hands the rest to the others)
 */
async function indexedPick(sql: Sql, filter: CandidateFilter, count: number, random: () => number, first_round?: FirstRoundTasks): Promise<{ nodes: CandidateNode[]; inserted: boolean } | null> {
  const seed = String(Math.floor(random() * 2 ** 31));
  // One pick key per country of the first round: at most `count`, and never more than the countries.
  const rs = Array.from({ length: Math.min(count, COUNTRIES_MAX) }, () => random());
  const first = await countriesAndFirstPicks(sql, filter, count, INDEXED_ROUNDS_MAX, seed, rs, first_round);
  const { countries } = first;
  // Every pick of the first round was found, in position order: position i + 1 holds task i's node.
  if (first.inserted) return { nodes: first.found.map((x) => x.node), inserted: true };
  if (countries.length === 0) return { nodes: [], inserted: false };
  const rounds = Math.ceil(count / countries.length);
  if (rounds > INDEXED_ROUNDS_MAX) return null;
  const share = countries.map((_, i) => Math.floor(count / countries.length) + (i < count % countries.length ? 1 : 0));
  const got: CandidateNode[][] = countries.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const need = countries.flatMap((_, i) => (share[i]! > round ? [i] : []));
    const found = round === 0
      ? first.found.map(({ i, node }) => ({ i: need.indexOf(i), node }))
      : await pickInCountries(sql, filter, need.map((i) => ({
        country: countries[i]!, r: random(), used_asns: got[i]!.map((n) => n.asn ?? -1), picked: got[i]!.map((n) => n.id),
      })));
    if (found.length < need.length) return null;
    for (const { i, node } of found) got[need[i]!]!.push(node);
  }
  return { nodes: interleave(got), inserted: false };
}
