import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { connect } from '../../control-plane/src/db/sql.js';
import { pollTask, postToNodes, startCluster, waitAllServing, type Cluster } from './cluster.js';
import { countDelivery, openTaskCount, producedByNodes, serverFailures, taskStatus } from './delivery.js';
import { startLoad, type LoadStats } from './load.js';
import { createFaultNetwork, type FaultNetwork } from './network.js';
import { startOwnPostgres } from './postgres.js';
import { waitUntil } from './ports.js';

// Faults under load (docs/architecture/faults.md), each ending with "results produced by nodes = results stored,
// no duplicates" (docs/architecture/faults.md). One setup for the four scenarios: our own Postgres,
// the control plane in the root namespace, three agents in namespaces on one bridged segment.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (process.getuid?.() !== 0) {
  t.plan(0, 'fault tests need root (network namespaces, own Postgres run as the postgres user)');
} else {
  // The 30 s cut and the reconnect backoff that follows it make this file ~2 minutes: more than
  // the suite's default per-file timeout (package.json tap.timeout).
  t.setTimeout(420_000);
  t.test('faults under load: every result a node produced is stored exactly once', { timeout: 400_000 }, async (t) => {
    const pg = await startOwnPostgres();
    t.teardown(() => pg.destroy());
    const net: FaultNetwork = await createFaultNetwork(3);
    t.teardown(() => net.cleanup());
    // The target every load probe connects to: an HTTP server (also a TCP target) on the root
    // address; /slow answers after 3 s, so results of tasks sent before a fault are made during it.
    const target: Server = createServer((req, res) => {
      if (req.url === '/slow') setTimeout(() => res.end('slow ok\n'), 3000);
      else res.end('ok\n');
    });
    await new Promise<void>((resolve) => target.listen(0, net.root_ip, resolve));
    t.teardown(() => new Promise<void>((resolve) => { target.closeAllConnections(); target.close(() => resolve()); }));
    const tcp_target = `${net.root_ip}:${(target.address() as AddressInfo).port}`;
    const slow_url = `http://${tcp_target}/slow`;

    const cluster: Cluster = await startCluster(net, pg.url);
    t.teardown(() => cluster.stop());
    const sql = connect(pg.url, 2);
    t.teardown(() => sql.end({ timeout: 2 }));
    const state_dirs = [...cluster.agents.values()].map((a) => a.state_dir);
    const agent = (host: string) => cluster.agents.get(host)!;
    const logs = () => [cluster.control_plane, ...cluster.agents.values()].map((s) => `--- ${s.name} (${s.log_file})\n${s.logTail(12)}`).join('\n');

    const load = () => startLoad(cluster.api, 'tcp', () => ({ target: tcp_target, nodes: { count: 3 }, params: { timeout_ms: 2000 } }), 150);
    /** Wait until the load has had `n` more probes accepted than it had at the call. */
    const moreAccepted = (l: { stats: LoadStats }, n: number, what: string) => {
      const from = l.stats.accepted;
      return waitUntil(what, 120_000, () => (l.stats.accepted >= from + n ? true : null), 100);
    };
    /**
     * Post an HTTP probe of the slow URL to every node and wait until all accepted it: their
     * results will be produced ~3 s later, during the fault that the caller starts next.
     */
    const slowProbeInFlight = async () => {
      const node_ids = [...cluster.agents.values()].map((a) => a.node_id);
      const created = await postToNodes<{ task_id: string; task_ids: string[] }>(cluster.api, '/v1/probe/http', { target: slow_url, node_ids, params: { timeout_ms: 8000 } });
      await waitUntil('every node to accept the slow probe', 30_000, async () => {
        for (const id of created.task_ids) if ((await taskStatus(sql, id)) !== 'running') return null;
        return true;
      }, 100);
      return created.task_id;
    };
    /** The slow probe's group ended with every node's own successful result (made during the fault, delivered after it). */
    const assertSlowProbeDelivered = async (t: Test, task_id: string) => {
      const view = await pollTask(cluster.api, task_id, (v) => v.node_results.length === 3 && v.node_results.every((r) => r.success), 120_000)
        .catch(async (err: Error) => { t.fail(`${err.message}\n${logs()}`); return null; });
      if (view) t.same(view.node_results.map((r) => r.status_code), [200, 200, 200], 'results produced during the fault arrived: 3 × HTTP 200');
    };
    let produced_before = 0;
    // VANTAGE_FAULTS_ONLY=2,4 runs only those scenarios (while working on one).
    const only = process.env.VANTAGE_FAULTS_ONLY?.split(',').map((n) => n.trim());
    const scenario = (n: string, name: string, fn: (t: Test) => Promise<void>) =>
      (only && !only.includes(n) ? t.test(`${n}. ${name}`, { skip: 'not in VANTAGE_FAULTS_ONLY' }, async () => {}) : t.test(`${n}. ${name}`, fn));
    /** The end of every scenario: outboxes drained, every task ended, produced = stored, no duplicates. */
    const assertDelivered = async (t: Test, stats: LoadStats) => {
      await waitUntil('every task to end (result or sweeper)', 90_000, async () => ((await openTaskCount(sql)) === 0 ? true : null), 500)
        .catch((err: Error) => t.fail(err.message));
      const drain_from = Date.now();
      const count = await countDelivery(sql, state_dirs, 90_000);
      t.comment(`outboxes drained and counted in ${Date.now() - drain_from} ms`);
      t.comment(`load: ${stats.posted} posted, ${stats.accepted} accepted, failures ${JSON.stringify(stats.failures)}; ` +
        `results produced by nodes ${count.produced}, stored ${count.stored}; failures recorded by the control plane so far ${JSON.stringify(await serverFailures(sql))}`);
      t.ok(count.produced > produced_before, 'the nodes produced results during this scenario');
      t.same(count.missing, [], 'every result a node produced is stored (none lost)');
      t.same(count.unexpected, [], 'every stored node result was produced by a node (none made up)');
      t.equal(count.stored, count.produced, 'stored = produced');
      t.equal(count.duplicate_rows, 0, 'no result id stored twice');
      t.equal(count.tasks_with_several, 0, 'one result per task');
      if (count.missing.length || count.unexpected.length) t.comment(logs());
      produced_before = count.produced;
    };

    await scenario('1', 'control plane killed -9 under load and restarted: agents reconnect and replay', async (t) => {
      await waitAllServing(cluster, tcp_target);
      const l = load();
      await moreAccepted(l, 10, 'load before the kill');
      const slow_task = await slowProbeInFlight();
      await cluster.control_plane.kill9();
      const failed_at_kill = l.stats.failed;
      await waitUntil('the load to notice the outage', 30_000, () => (l.stats.failed >= failed_at_kill + 5 ? true : null), 100);
      cluster.control_plane.start(); // same database, same address and port
      const tries = await waitAllServing(cluster, tcp_target, 150_000).catch((err: Error) => { t.fail(`${err.message}\n${logs()}`); return -1; });
      t.comment(`all nodes served again after ${tries} probe(s)`);
      await moreAccepted(l, 10, 'load after the restart');
      const stats = await l.stop();
      t.ok(stats.failed > 0, 'the load saw the control plane down');
      await assertSlowProbeDelivered(t, slow_task);
      await assertDelivered(t, stats);
    });

    await scenario('2', 'one agent host cut off for 30 s: it buffers; the timeout failure is replaced by its real result', async (t) => {
      const host = 'a1';
      // A slow target on a1's own loopback address: reachable from a1 while its link is down.
      const slow = net.topology.spawn(host, [process.execPath, '-e',
        `require('http').createServer((q,s)=>setTimeout(()=>s.end('slow ok\\n'),4000)).listen(8080,'${net.local_ip(host)}',()=>console.log('ready'))`],
      { stdio: ['ignore', 'pipe', 'inherit'] });
      t.teardown(() => { slow.kill('SIGKILL'); });
      await new Promise<void>((resolve, reject) => {
        slow.stdout!.once('data', () => resolve());
        slow.once('exit', (code) => reject(new Error(`slow target exited ${code}`)));
      });
      await waitAllServing(cluster, tcp_target);
      const l = load();
      await moreAccepted(l, 5, 'load before the cut');
      const { task_id } = await postToNodes<{ task_id: string }>(cluster.api, '/v1/probe/http', {
        target: `http://${net.local_ip(host)}:8080/`, node_ids: [agent(host).node_id], params: { timeout_ms: 8000 },
      });
      await waitUntil('a1 to accept the http task', 30_000, async () => ((await taskStatus(sql, task_id)) === 'running' ? true : null), 100);
      await net.cut(host);
      const cut_at = Date.now();
      const timed_out = await pollTask(cluster.api, task_id, (v) => v.node_results.length === 1, 40_000);
      t.equal(timed_out.node_results[0]!.success, false, 'at deadline + grace the task ends failed');
      t.match(timed_out.node_results[0]!.error, /no result from the node within 8000 ms/, 'with the sweeper\'s "no result" error');
      t.equal(timed_out.node_results[0]!.error_class, 'timeout');
      await sleep(Math.max(0, cut_at + 30_000 - Date.now())); // the cut lasts 30 s
      t.ok(producedByNodes([agent(host).state_dir]).produced.length > 0, 'a1 kept producing into its outbox');
      await net.restore(host);
      const replaced = await pollTask(cluster.api, task_id, (v) => v.node_results[0]?.success === true, 150_000)
        .catch((err: Error) => { t.fail(`${err.message}\n${logs()}`); return null; });
      if (replaced) {
        t.equal(replaced.node_results[0]!.status_code, 200, 'the real result (HTTP 200 from the slow target) replaced the failure');
        t.equal(replaced.status, 'completed');
      }
      await waitAllServing(cluster, tcp_target, 150_000);
      const stats = await l.stop();
      await assertDelivered(t, stats);
    });

    await scenario('3', 'agent killed -9 mid-task and restarted: its part fails clearly, the others complete', async (t) => {
      const host = 'a2';
      await waitAllServing(cluster, tcp_target);
      const l = load();
      await moreAccepted(l, 5, 'load before the kill');
      const node_ids = [...cluster.agents.values()].map((a) => a.node_id);
      // 20 echoes 0.5 s apart (the others finish in ~10 s); a per-echo timeout of 30 s puts the
      // task's deadline 40 s out, so the agent, which can take 10-20 s to start again on a busy
      // machine, is back before the sweeper would end the task.
      const created = await postToNodes<{ task_id: string; task_ids: string[] }>(cluster.api, '/v1/probe/ping', {
        target: net.root_ip, node_ids, params: { count: 20, interval_ms: 500, timeout_ms: 30_000 },
      });
      const victim_task = created.task_ids[node_ids.indexOf(agent(host).node_id)]!;
      await waitUntil('a2 to start the ping', 30_000, async () => ((await taskStatus(sql, victim_task)) === 'running' ? true : null), 100);
      await sleep(1000); // a couple of echo requests into the 10 s ping
      await agent(host).kill9();
      agent(host).start();
      const view = await pollTask(cluster.api, created.task_id, (v) => v.node_results.length === 3, 120_000);
      const victim = view.node_results.find((r) => r.node_id === agent(host).node_id)!;
      t.equal(victim.success, false, 'the killed agent\'s part ended failed');
      t.match(victim.error, /^node restarted/, 'failed as soon as the agent came back without it (its hello lists the tasks it holds)');
      for (const r of view.node_results.filter((r) => r.node_id !== agent(host).node_id)) {
        t.equal(r.success, true, `${r.node_name}: ping completed`);
        t.equal(r.packets_received, 20, `${r.node_name}: 20 of 20 echo replies`);
      }
      t.equal(view.status, 'completed', 'the task completed with the other nodes\' results');
      await waitAllServing(cluster, tcp_target, 120_000);
      const stats = await l.stop();
      await assertDelivered(t, stats);
    });

    await scenario('4', 'Postgres restarted under load: the control plane survives, unacked results are resent', async (t) => {
      await waitAllServing(cluster, tcp_target);
      const l = load();
      await moreAccepted(l, 10, 'load before the restart');
      const slow_task = await slowProbeInFlight();
      await pg.stop();
      await sleep(5000); // the outage (stop, wait 5 s, start)
      await pg.start();
      const back_at = Date.now();
      await waitAllServing(cluster, tcp_target, 120_000).catch((err: Error) => t.fail(`${err.message}\n${logs()}\n--- postgres\n${pg.logTail()}`));
      t.comment(`every node served a probe again ${Date.now() - back_at} ms after Postgres was back`);
      await moreAccepted(l, 10, 'load after the restart');
      const stats = await l.stop();
      t.equal(cluster.control_plane.proc?.exitCode, null, 'the control plane process survived the outage');
      t.ok(stats.failed > 0, 'requests failed during the outage');
      await assertSlowProbeDelivered(t, slow_task);
      await assertDelivered(t, stats);
    });
  });
}
