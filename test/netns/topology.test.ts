import { execFileSync } from 'node:child_process';
import t from 'tap';
import { createTopology, listNamespaces, sweepStaleNamespaces } from './topology.js';

t.test('two hosts on one link: addresses, exec, ifname, cleanup', async (t) => {
  const topo = await createTopology({
    nodes: { left: {}, right: {} },
    links: [{ a: 'left', b: 'right', a_addrs: ['198.18.10.1/24', 'fd00:7661:10::1/64'], b_addrs: ['198.18.10.2/24', 'fd00:7661:10::2/64'] }],
  });
  t.teardown(() => topo.cleanup());
  t.match(topo.ns('left'), new RegExp(`^${topo.prefix}-left$`));
  t.same((await listNamespaces(topo.prefix)).sort(), [topo.ns('left'), topo.ns('right')].sort());
  t.equal(topo.ifname('left', 'right'), 'eth0');
  t.throws(() => topo.ifname('left', 'nobody'));

  const addrs = await topo.run('right', ['ip', '-br', 'addr', 'show', 'dev', topo.ifname('right', 'left')]);
  t.match(addrs, /198\.18\.10\.2\/24/);
  t.match(addrs, /fd00:7661:10::2\/64/);
  // Reachability over the link from inside a namespace, without any of our probe code.
  const conn = await topo.exec('left', ['ip', 'route', 'get', '198.18.10.2']);
  t.equal(conn.code, 0);
  t.match(conn.stdout, /dev eth0/);
  const failing = await topo.exec('left', ['sh', '-c', 'echo oops >&2; exit 3']);
  t.same(failing, { code: 3, stdout: '', stderr: 'oops\n' });
  await t.rejects(topo.run('left', ['false']));

  const child = topo.spawn('left', ['sleep', '60']);
  await topo.cleanup();
  t.ok(child.killed || child.exitCode !== null || child.signalCode !== null, 'spawned process killed');
  t.same(await listNamespaces(topo.prefix), [], 'every namespace deleted');
  await topo.cleanup(); // idempotent
});

t.test('a failing spec deletes what was made and rethrows', async (t) => {
  // Only this process's namespaces: other test files may be creating theirs right now.
  const ours = () => execFileSync('ip', ['netns', 'list']).toString().split('\n').filter((l) => l.startsWith(`vt${process.pid}x`));
  const before = ours();
  await t.rejects(createTopology({
    nodes: { one: {}, two: {} },
    links: [{ a: 'one', b: 'two', a_addrs: ['not-an-address/99'] }],
  }), /ip -n .* addr add not-an-address/);
  t.same(ours(), before, 'no namespace left behind');
});

t.test('stale namespaces of dead processes are swept, live ones kept', async (t) => {
  // pid 2^22+1 is above Linux's pid_max limit, so no process can have it.
  const mine = await createTopology({ nodes: { alive: {} }, links: [] });
  t.teardown(() => mine.cleanup());
  const dead = `vt${(1 << 22) + 1}xabc123-ghost`;
  execFileSync('ip', ['netns', 'add', dead]);
  t.teardown(() => { try { execFileSync('ip', ['netns', 'del', dead], { stdio: 'ignore' }); } catch { /* already swept */ } });
  const swept = await sweepStaleNamespaces();
  t.ok(swept.includes(dead), 'the dead run\'s namespace is swept');
  t.same(await listNamespaces(mine.prefix), [mine.ns('alive')], 'a live run keeps its namespaces');
});
