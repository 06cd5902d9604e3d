import t from 'tap';
import { canRun, improveSpread, pickSpread, placeMonitor, spreadScore, type PlacementMonitor, type PlacementNode } from './placement.js';
import { placementOf } from './placement-status.js';

/** A seeded [0,1) source (mulberry32), so ties break the same way every run. */
function seeded(seed = 42): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

let seq = 0;
function node(country: string, asn: number, over: Partial<PlacementNode> = {}): PlacementNode {
  return { id: `n_${String(++seq).padStart(4, '0')}`, country, asn, capabilities: ['http', 'ping', 'dns', 'tcp', 'traceroute'], owner_user_id: 'u_other', team_id: null, allow_private: false, platform: false, shared: true, state: 'online', load: 0, ...over };
}
const monitor = (over: Partial<PlacementMonitor> = {}): PlacementMonitor => ({ id: 'm_x', user_id: 'u_me', team_id: null, type: 'http', node_count: 3, private_target: false, status: 'active', secret_headers: false, ...over });
const byId = (nodes: PlacementNode[]) => new Map(nodes.map((n) => [n.id, n]));

t.test('spread: countries first, then networks, then the least loaded', async (t) => {
  const nodes = [
    node('DE', 1), node('DE', 1), node('DE', 2), node('FR', 3), node('FR', 3), node('US', 4, { load: 5 }), node('US', 5, { load: 1 }),
  ];
  const out = placeMonitor(monitor(), [], byId(nodes), seeded());
  const chosen = out.add.map((id) => nodes.find((n) => n.id === id)!);
  t.same(chosen.map((n) => n.country).sort(), ['DE', 'FR', 'US'], 'one node per country');
  t.equal(chosen.find((n) => n.country === 'US')!.asn, 5, 'the less loaded US node');
  t.notOk(out.short);

  const five = placeMonitor(monitor({ node_count: 5 }), [], byId(nodes.map((n) => ({ ...n, load: 0 }))), seeded());
  const picked = five.add.map((id) => nodes.find((n) => n.id === id)!);
  t.same(spreadScore(picked), [3, 5], 'a second node of a country comes from another network');

  t.same(pickSpread([], [], 3), [], 'no candidates, no picks');
});

t.test('capabilities and private targets decide who may run a monitor', async (t) => {
  const noPing = node('DE', 1, { capabilities: ['http', 'dns', 'tcp'] });
  const empty = node('FR', 2, { capabilities: [] });
  const mine = node('US', 3, { owner_user_id: 'u_me', allow_private: true });
  const mineClosed = node('US', 4, { owner_user_id: 'u_me', allow_private: false });
  t.notOk(canRun(noPing, monitor({ type: 'ping' })), 'no raw ICMP, no ping monitors');
  t.ok(canRun(noPing, monitor({ type: 'keyword' })), 'keyword needs http');
  t.ok(canRun(noPing, monitor({ type: 'ssl_expiry' })), 'ssl_expiry needs tcp');
  t.ok(canRun(empty, monitor({ type: 'ping' })), 'an empty list counts as every probe type');
  t.notOk(canRun(empty, monitor({ type: 'browser' })), 'browser must be advertised');
  t.notOk(canRun(noPing, monitor({ private_target: true })), 'private target: not on someone else\'s node');
  t.notOk(canRun(mineClosed, monitor({ private_target: true })), 'private target: not on my node that refuses them');
  t.ok(canRun(mine, monitor({ private_target: true })));

  const nodes = byId([noPing, empty, mine, mineClosed]);
  const priv = placeMonitor(monitor({ private_target: true }), [], nodes, seeded());
  t.same(priv, { keep: [], add: [mine.id], end: [], short: true }, 'only my node that allows private targets; short of the other two');
  const ping = placeMonitor(monitor({ type: 'ping' }), [], nodes, seeded());
  t.notOk(ping.add.includes(noPing.id));
  t.equal(ping.add.length, 3);
});

t.test('a team\'s nodes are the team\'s monitors\' own, whoever enrolled them; not its members\' personal ones', async (t) => {
  const team = (over: Partial<PlacementMonitor> = {}) => monitor({ team_id: 'team_a', ...over });
  const byOther = node('DE', 1, { owner_user_id: 'u_other', team_id: 'team_a', allow_private: true, shared: false });
  const byMe = node('FR', 2, { owner_user_id: 'u_me', team_id: 'team_a', allow_private: true, shared: false });
  const myOwn = node('US', 3, { owner_user_id: 'u_me', allow_private: true, shared: false });
  const otherTeam = node('JP', 4, { owner_user_id: 'u_me', team_id: 'team_b', allow_private: true, shared: false });
  for (const n of [byOther, byMe]) {
    t.ok(canRun(n, team({ private_target: true, secret_headers: true })), 'a team node runs the team\'s private, secret monitor');
    t.notOk(canRun(n, monitor()), 'an unshared team node does not run a personal monitor, even its enroller\'s');
  }
  t.notOk(canRun(myOwn, team()), 'the creator\'s personal node does not run the team\'s monitor');
  t.notOk(canRun(otherTeam, team()), 'nor another team\'s node');
  t.ok(canRun(myOwn, monitor({ private_target: true, secret_headers: true })), 'a personal monitor: its creator\'s personal node');
  const shared = { ...byMe, shared: true };
  t.ok(canRun(shared, monitor()), 'a shared team node serves a personal monitor');
  t.notOk(canRun(shared, monitor({ secret_headers: true })), 'but never holds its secrets');
  t.notOk(canRun(shared, monitor({ private_target: true })), 'nor runs its private target');
});

t.test('secret headers: only the owner\'s nodes and platform nodes, in placement and in the record', async (t) => {
  const theirs = node('DE', 1);
  const mine = node('FR', 2, { owner_user_id: 'u_me' });
  const platform = node('JP', 3, { platform: true });
  const orphan = node('US', 4, { owner_user_id: null });
  const secret = monitor({ secret_headers: true, node_count: 3 });
  t.same([theirs, mine, platform, orphan].map((n) => canRun(n, secret)), [false, true, true, false], 'someone else\'s node and an unowned one are not trusted');
  t.ok(canRun(theirs, monitor()), 'without secrets: anyone\'s node');
  const out = placeMonitor(secret, [theirs.id], byId([theirs, mine, platform, orphan]), seeded());
  t.same(out.end, [theirs.id], 'a placed node that may not hold the secrets is dropped');
  t.same(out.add.sort(), [mine.id, platform.id].sort());
  t.ok(out.short, 'two trusted nodes for three wanted: short');

  const row = { type: 'https' as const, node_count: 3, private_target: false, status: 'active' as const };
  t.same(placementOf({ ...row, config: { headers: { 'X-Api-Key': 'k', Authorization: 'b', Accept: 'x' } }, node_ids: ['n_1'] }), {
    status: 'short', secret_headers: ['Authorization', 'X-Api-Key'],
    message: 'placed on 1 of 3 nodes: its headers Authorization, X-Api-Key carry secrets, which go only to your own nodes and to platform nodes, and no more of those online can run it; placement keeps trying',
  });
  t.same(placementOf({ ...row, config: { headers: { Accept: 'x' } }, node_ids: ['n_1', 'n_2', 'n_3'] }), { status: 'placed', secret_headers: [], message: null });
  t.match(placementOf({ ...row, private_target: true, status: 'paused', config: {}, node_ids: [] }).message, /0 of 3 nodes: its target is private.*paused monitor gets no new nodes/);
  t.match(placementOf({ ...row, type: 'ping', config: { headers: { Authorization: 'b' } }, node_ids: [] }), { status: 'short', secret_headers: [] }, 'only the HTTP-like types have request headers');
  t.same(placementOf({ ...row, type: 'heartbeat', config: {}, node_ids: [] }), { status: 'control_plane', secret_headers: [], message: null });
});

t.test('sharing: another account\'s node runs a monitor only when shared or a platform node; the owner\'s own always', async (t) => {
  const closed = node('DE', 1, { shared: false });
  const open = node('FR', 2);
  const mine = node('US', 3, { owner_user_id: 'u_me', shared: false });
  const platform = node('JP', 4, { shared: false, platform: true });
  const m = monitor({ node_count: 4 });
  t.same([closed, open, mine, platform].map((n) => canRun(n, m)), [false, true, true, true]);
  const out = placeMonitor(m, [closed.id], byId([closed, open, mine, platform]), seeded());
  t.same(out.end, [closed.id], 'placed before its owner stopped sharing it: dropped');
  t.same(out.add.sort(), [open.id, mine.id, platform.id].sort(), 'a shared node, my own unshared node, the platform node');
  t.ok(out.short, 'three of four wanted: short');
});

t.test('re-placement: gone and unfit nodes are dropped, nodes in their grace kept, paused monitors not refilled', async (t) => {
  const [a, b, c, d, e] = [node('DE', 1), node('FR', 2), node('US', 3), node('JP', 4), node('BR', 5)];
  const nodes = byId([a!, b!, c!, d!, e!]);
  b!.state = 'grace';
  c!.state = 'gone';
  const out = placeMonitor(monitor(), [a!.id, b!.id, c!.id], nodes, seeded());
  t.same(out.keep.sort(), [a!.id, b!.id].sort(), 'the node in its grace keeps the monitor');
  t.same(out.end, [c!.id]);
  t.equal(out.add.length, 1);
  t.ok([d!.id, e!.id].includes(out.add[0]!));

  const paused = placeMonitor(monitor({ status: 'paused' }), [a!.id, c!.id], nodes, seeded());
  t.same(paused, { keep: [a!.id], add: [], end: [c!.id], short: false }, 'paused: the gone node leaves, no new one');

  const fewer = placeMonitor(monitor({ node_count: 1 }), [a!.id, b!.id, d!.id], nodes, seeded());
  t.equal(fewer.keep.length, 1);
  t.ok(fewer.end.includes(b!.id), 'the node in its grace is dropped first');
});

t.test('improveSpread: one move towards a new country, only onto nodes below the load cap', async (t) => {
  const [a, b, c] = [node('DE', 1, { load: 10 }), node('DE', 2, { load: 10 }), node('FR', 3, { load: 10 })];
  const fresh = node('JP', 9);
  const nodes = byId([a!, b!, c!, fresh]);
  const m = monitor();
  const mv = improveSpread(m, [a!.id, b!.id, c!.id], nodes, 20);
  t.ok(mv && [a!.id, b!.id].includes(mv.remove) && mv.add === fresh.id, 'a DE node makes room for the new country');
  fresh.load = 20;
  t.equal(improveSpread(m, [a!.id, b!.id, c!.id], nodes, 20), null, 'a full node takes nothing');
  t.equal(improveSpread(m, [a!.id, c!.id, fresh.id], nodes, 100), null, 'already one country each');
  fresh.state = 'grace';
  t.equal(improveSpread(m, [a!.id, c!.id, fresh.id], nodes, 100), null, 'a node in its grace: leave the monitor alone');
});
