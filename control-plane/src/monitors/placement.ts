import { CHECK_CAPABILITY, PROBE_TYPES, isNodeCheckType, type MonitorStatus, type MonitorType } from '@vantage/shared-protocol';
import { mayHoldSecretsOf } from '../secrets/node-trust.js';
import { mayServe, sameOwner } from '../nodes/sharing.js';

/*
 * Where a monitor runs (docs/api/monitors.md "Placement"): pure decisions over a snapshot of the
 * nodes; placement-engine.ts reads the snapshot and writes the outcome.
 */

/**
 * A node as placement sees it. `state`: `online` (a candidate), `grace` (offline for less than the
 * grace: keeps its monitors, gets no new ones), `gone` (offline past the grace, disabled or
 * banned: its monitors move). Removed nodes are not in the snapshot at all (gone too).
 */
export interface PlacementNode {
  id: string;
  /** ISO country code, '' when unknown (a group of its own). */
  country: string;
  asn: number | null;
  capabilities: string[];
  owner_user_id: string | null;
  /** The team the node belongs to (0046; null: its enrolling account's personal node). */
  team_id: string | null;
  allow_private: boolean;
  /** A platform node (0037): trusted with every account's secrets, serves every account. */
  platform: boolean;
  /** Its owner lets other accounts' monitors run on it (0045, nodes/sharing.ts). */
  shared: boolean;
  state: 'online' | 'grace' | 'gone';
  /** Live placements on the node (monitors it runs): the least loaded of equal choices wins. */
  load: number;
}

/** What placement needs of a monitor. */
export interface PlacementMonitor {
  id: string;
  /** Its owner: the creator, and the team it belongs to (null: personal). */
  user_id: string;
  team_id: string | null;
  type: MonitorType;
  node_count: number;
  private_target: boolean;
  status: MonitorStatus;
  /** Its request headers carry secrets (placement-status.ts monitorSecretHeaders): only trusted nodes may run it. */
  secret_headers: boolean;
}

/** The outcome for one monitor: nodes kept, added and dropped; `short` when fewer than node_count could be found. */
export interface PlacementChange {
  keep: string[];
  add: string[];
  end: string[];
  short: boolean;
}

/**
 * The node capability (docs/api/nodes.md `capabilities`) a monitor type needs: shared-protocol
 * CHECK_CAPABILITY (the probe its check is built on, or `browser` for browser checks).
 */
export function requiredCapability(type: MonitorType): string {
  return isNodeCheckType(type) ? CHECK_CAPABILITY[type] : type;
}

/**
 * True when `node` may run `m`: it serves the monitor's owner (its own node, a shared node or a
 * platform node: nodes/sharing.ts mayServe, docs/api/nodes.md "Sharing"); it advertises the
 * capability (an empty list counts as every probe
 * type, as for ad-hoc probes; a type of its own, such as browser, must be listed); for a private
 * target it is a node of the monitor's owner (nodes/sharing.ts sameOwner: a team monitor's team's
 * nodes, whoever enrolled them; a personal monitor's creator's personal nodes) with private
 * targets allowed; for a monitor whose headers carry secrets it may hold the owner's secrets
 * (secrets/node-trust.ts: the owner's node or a platform node). Other monitors run on any node
 * that serves their owner.
 */
export function canRun(node: PlacementNode, m: PlacementMonitor): boolean {
  const cap = requiredCapability(m.type);
  const able = node.capabilities.length === 0 ? (PROBE_TYPES as readonly string[]).includes(cap) : node.capabilities.includes(cap);
  if (!able || !mayServe(node, m)) return false;
  if (m.secret_headers && !mayHoldSecretsOf(node, m)) return false;
  return !m.private_target || (sameOwner(node, m) && node.allow_private);
}

const networkKey = (n: PlacementNode) => `${n.country}/${n.asn ?? '?'}`;

function counts(nodes: PlacementNode[], key: (n: PlacementNode) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const n of nodes) m.set(key(n), (m.get(key(n)) ?? 0) + 1);
  return m;
}

/**
 * Choose `need` nodes of `candidates` to join `chosen`, one at a time: the candidate whose country
 * is least used among the chosen, then whose network (country + ASN) is, then the least loaded,
 * ties broken at random. So monitors spread across countries, then networks, and nodes fill evenly.
 * Picked nodes' `load` is increased (the snapshot stays current for the next monitor).
 */
export function pickSpread(chosen: PlacementNode[], candidates: PlacementNode[], need: number, random: () => number = Math.random): PlacementNode[] {
  const byCountry = counts(chosen, (n) => n.country);
  const byNetwork = counts(chosen, networkKey);
  const taken = new Set(chosen.map((n) => n.id));
  const picked: PlacementNode[] = [];
  for (let i = 0; i < need; i++) {
    let best: PlacementNode | null = null;
    let bestKey: number[] = [];
    for (const c of candidates) {
      if (taken.has(c.id)) continue;
      const key = [byCountry.get(c.country) ?? 0, byNetwork.get(networkKey(c)) ?? 0, c.load, random()];
      if (!best || less(key, bestKey)) { best = c; bestKey = key; }
    }
    if (!best) break;
    picked.push(best);
    taken.add(best.id);
    best.load++;
    byCountry.set(best.country, (byCountry.get(best.country) ?? 0) + 1);
    byNetwork.set(networkKey(best), (byNetwork.get(networkKey(best)) ?? 0) + 1);
  }
  return picked;
}

function less(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/**
 * Work out a monitor's placement from the nodes it is on now (`placed`, ids) and the snapshot:
 * - a placed node that is gone (past the grace, disabled, banned, removed) or can no longer run
 *   the monitor (capability, private target, secret headers) is dropped, whatever the monitor's status;
 * - a paused monitor keeps the rest and gets no new node (its nodes stop running it because its
 *   assignment leaves their set; resuming brings it back on the same nodes);
 * - an active monitor on more nodes than `node_count` drops the extra ones (nodes in their grace
 *   first, then those sharing a country, then the most loaded); on fewer, it gets nodes from
 *   {@link pickSpread} among the online nodes that can run it.
 * Loads in `nodes` are updated for the nodes added and dropped.
 */
export function placeMonitor(m: PlacementMonitor, placed: string[], nodes: Map<string, PlacementNode>, random: () => number = Math.random): PlacementChange {
  const end: string[] = [];
  const valid: PlacementNode[] = [];
  for (const id of placed) {
    const n = nodes.get(id);
    if (n && n.state !== 'gone' && canRun(n, m)) valid.push(n);
    else end.push(id);
  }
  if (m.status !== 'active') return finish(valid, [], end, false, nodes);
  if (valid.length > m.node_count) {
    const byCountry = counts(valid, (n) => n.country);
    const order = [...valid].sort((a, b) => Number(b.state === 'grace') - Number(a.state === 'grace')
      || (byCountry.get(b.country) ?? 0) - (byCountry.get(a.country) ?? 0) || b.load - a.load);
    const drop = new Set(order.slice(0, valid.length - m.node_count).map((n) => n.id));
    end.push(...drop);
    return finish(valid.filter((n) => !drop.has(n.id)), [], end, false, nodes);
  }
  const need = m.node_count - valid.length;
  if (need === 0) return finish(valid, [], end, false, nodes);
  const dropped = new Set(end);
  const candidates: PlacementNode[] = [];
  for (const n of nodes.values()) if (n.state === 'online' && !dropped.has(n.id) && canRun(n, m)) candidates.push(n);
  const added = pickSpread(valid, candidates, need, random);
  return { keep: valid.map((n) => n.id), add: added.map((n) => n.id), end: decrement(end, nodes), short: valid.length + added.length < m.node_count };
}

function decrement(end: string[], nodes: Map<string, PlacementNode>): string[] {
  for (const id of end) { const n = nodes.get(id); if (n && n.load > 0) n.load--; }
  return end;
}

function finish(keep: PlacementNode[], add: string[], end: string[], short: boolean, nodes: Map<string, PlacementNode>): PlacementChange {
  return { keep: keep.map((n) => n.id), add, end: decrement(end, nodes), short };
}

/** How well a set of nodes is spread: distinct countries, then distinct networks (higher is better). */
export function spreadScore(nodes: PlacementNode[]): [number, number] {
  return [new Set(nodes.map((n) => n.country)).size, new Set(nodes.map(networkKey)).size];
}

/**
 * One move that improves an active monitor's spread, if there is one: drop the node whose country
 * (then network) is most shared among its nodes and take the online node that can run it, is
 * below `load_cap` and gives the best spread (then the least loaded). Only monitors whose nodes
 * are all online are moved (a node in its grace may come back). At most one node per monitor per
 * call: churn stays bounded. @returns `{ remove, add }` or null
 */
export function improveSpread(m: PlacementMonitor, placed: string[], nodes: Map<string, PlacementNode>, load_cap: number): { remove: string; add: string } | null {
  if (m.status !== 'active') return null;
  const current = placed.map((id) => nodes.get(id));
  if (current.some((n) => !n || n.state !== 'online')) return null;
  const have = current as PlacementNode[];
  const score = spreadScore(have);
  if (score[0] === have.length) return null; // every node in its own country: nothing to gain
  const byCountry = counts(have, (n) => n.country);
  const byNetwork = counts(have, networkKey);
  const victim = [...have].sort((a, b) => (byCountry.get(b.country)! - byCountry.get(a.country)!)
    || (byNetwork.get(networkKey(b))! - byNetwork.get(networkKey(a))!) || b.load - a.load)[0]!;
  const rest = have.filter((n) => n !== victim);
  const taken = new Set(placed);
  let best: { node: PlacementNode; score: [number, number] } | null = null;
  for (const c of nodes.values()) {
    if (c.state !== 'online' || taken.has(c.id) || c.load >= load_cap || !canRun(c, m)) continue;
    const s = spreadScore([...rest, c]);
    if (!best || s[0] > best.score[0] || (s[0] === best.score[0] && (s[1] > best.score[1] || (s[1] === best.score[1] && c.load < best.node.load)))) best = { node: c, score: s };
  }
  if (!best || !(best.score[0] > score[0] || (best.score[0] === score[0] && best.score[1] > score[1]))) return null;
  victim.load--;
  best.node.load++;
  return { remove: victim.id, add: best.node.id };
}
