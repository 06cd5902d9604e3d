/**
 * Benchmark (not a test) of what the per-address upgrade count costs a reconnect storm: `--nodes`
 * nodes (default 2000) enrolled on a real app on 127.0.0.1 against a scratch database at
 * TEST_DATABASE_URL, each from its own address (X-Forwarded-For with trust_proxy), then all of them
 * reconnecting at once with `hello`. Prints the storm's wall time and the p50/p99 of one
 * reconnect (upgrade → welcome), and, beside it, the cost of the count alone: `--nodes`
 * concurrent `hitRateLimit` UPSERTs on distinct buckets (what the storm adds).
 *
 *   node --import tsx test/bench/upgrade-storm-bench.ts [--nodes 2000]
 */
import { parseArgs } from 'node:util';
import { PROTOCOL_VERSION } from '@vantage/shared-protocol';
import { testApp } from '../../control-plane/src/test-support/app.js';
import { hitRateLimit } from '../../control-plane/src/db/rate-limit.js';
import { enrollNode, makeToken } from '../../control-plane/src/hub/test-harness.js';
import { TestNode } from '../../control-plane/src/test-support/test-node.js';
import { fmt, quantile } from './lib/stats.js';

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '2000' } } });
const n = Number(values.nodes);
const teardowns: Array<() => unknown> = [];
try {
  const { url, sql } = await testApp({ teardown: (fn) => void teardowns.push(fn) }, { config: { trust_proxy: true, hello_timeout_ms: 60_000, heartbeat_interval_ms: 60_000 } });
  const ip = (i: number) => `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`;
  const nodes: Array<{ node_id: string; credential: string }> = [];
  for (let i = 0; i < n; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, n - i) }, async () => {
      const e = await enrollNode(url, await makeToken(sql));
      e.node.close();
      return { node_id: e.node_id, credential: e.credential };
    }));
    nodes.push(...batch);
  }
  await new Promise((r) => setTimeout(r, 1000));

  const started = performance.now();
  const each: number[] = [];
  const held = await Promise.all(nodes.map(async (x, i) => {
    const t0 = performance.now();
    const node = await TestNode.connect(url, x.credential, { 'x-forwarded-for': ip(i) });
    node.send({ type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: 'bench', node_id: x.node_id });
    await node.next('welcome', 120_000);
    each.push(performance.now() - t0);
    return node;
  }));
  const storm_ms = performance.now() - started;
  for (const node of held) node.close();

  const t1 = performance.now();
  await Promise.all(Array.from({ length: n }, (_, i) => hitRateLimit(sql, `upgrade:bench-${Date.now()}-${i}`, 60)));
  const counts_ms = performance.now() - t1;

  console.log(`reconnect storm: ${n} nodes from ${n} addresses, all at once`);
  console.log(`  wall time              ${fmt(storm_ms)} ms`);
  console.log(`  one reconnect p50/p99  ${fmt(quantile(each, 0.5))} / ${fmt(quantile(each, 0.99))} ms`);
  console.log(`  ${n} upgrade counts alone (hitRateLimit, pool of 10): ${fmt(counts_ms)} ms`);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
