import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import type { HttpOutput, ResultEnvelope, TargetPolicy } from '@vantage/shared-protocol';
import { runAgentTasks, type AgentTask } from './test-support/agent-tasks.js';
import { startHttpServer } from './test-support/http-server.js';
import { createNetns } from './test-support/netns.js';

const run = promisify(execFile);
const NODE_AGENT_DIR = fileURLToPath(new URL('../../', import.meta.url));
const SCENARIO = fileURLToPath(new URL('./test-support/rebind-scenario.ts', import.meta.url));

// Loopback stands in for both worlds: 127.0.0.2 is "the public target" (the requester's policy
// lists it, as a deployment allow-list would), 127.0.0.1 is the internal service on the node.
const NODE_ALLOWS_PRIVATE: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const ANONYMOUS: TargetPolicy = { allow_private: false, allow_cidrs: ['127.0.0.2/32'] };
const OWNER: TargetPolicy = { allow_private: true, allow_cidrs: [] };

const SPELLINGS = ['127.0.0.1', 'localhost', 'localhost.', '2130706433', '0x7f000001', '0177.0.0.1', '127.1', '127.0.0.1.', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]'];

const http = (target: string): AgentTask['check'] => ({ type: 'http', target, params: { timeout_ms: 5000 } });

t.test('a redirect to the node\'s loopback is refused for a public task, whatever the spelling', async (t) => {
  const outer = await startHttpServer({ host: '127.0.0.2' });
  const inner = await startHttpServer({ host: '127.0.0.1' });
  t.teardown(async () => { await outer.close(); await inner.close(); });
  const redirectTo = (host: string) => `${outer.origin}/to?url=${encodeURIComponent(`http://${host}:${inner.port}/ok`)}`;

  const tasks: AgentTask[] = SPELLINGS.map((host) => ({ check: http(redirectTo(host)), policy: ANONYMOUS }));
  tasks.push({ check: http(redirectTo('127.0.0.1')), policy: OWNER }); // control: the owner may
  const results = await runAgentTasks({ state_dir: t.testdir(), node_policy: NODE_ALLOWS_PRIVATE, tasks });

  SPELLINGS.forEach((host, i) => {
    const r = results[i]!;
    const output = r.output as HttpOutput;
    t.match(r, { success: false, error_class: 'blocked' }, `${host}: refused`);
    t.equal(output.redirects.length, 1, `${host}: the public hop was answered`);
    t.equal(output.status_code, null, `${host}: no answer from the internal service`);
  });
  t.equal(inner.seen.length, 1, 'the internal service was reached only by its owner');
  t.match(results.at(-1), { success: true, output: { status_code: 200, final_url: `http://127.0.0.1:${inner.port}/ok` } });
});

t.test('private targets need both the node operator and the requester to allow them', async (t) => {
  const service = net.createServer((c) => c.end());
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  t.teardown(() => service.close());
  const port = (service.address() as net.AddressInfo).port;
  const tcp: AgentTask['check'] = { type: 'tcp', target: `127.0.0.1:${port}`, params: {} };
  const dns: AgentTask['check'] = { type: 'dns', target: 'example.test', params: { server: `127.0.0.1:${port}`, protocol: 'tcp', timeout_ms: 2000 } };

  const privateNode = await runAgentTasks({
    state_dir: t.testdir(), node_policy: NODE_ALLOWS_PRIVATE,
    tasks: [{ check: tcp, policy: ANONYMOUS }, { check: tcp }, { check: dns, policy: ANONYMOUS }, { check: tcp, policy: OWNER }],
  });
  t.match(privateNode[0], { success: false, error_class: 'blocked', output: { state: 'error', connect_ms: null } }, 'a public task on a private node');
  t.match(privateNode[1], { success: false, error_class: 'blocked' }, 'a task that names no requester policy is public only');
  t.match(privateNode[2], { success: false, error_class: 'blocked', error: /DNS server/ }, 'the dns server is judged like any target');
  t.match(privateNode[3], { success: true, output: { state: 'open' } }, "the owner's task");

  const publicNode = await runAgentTasks({ state_dir: t.testdir(), node_policy: { allow_private: false, allow_cidrs: [] }, tasks: [{ check: tcp, policy: OWNER }] });
  t.match(publicNode[0], { success: false, error_class: 'blocked' }, "the owner's task on a node whose operator does not allow private targets");
});

t.test('DNS rebinding: a name the node resolves to its loopback is refused for a public task (http, tcp, dns server)', async (t) => {
  const ns = await createNetns('rebind');
  const conf = `/etc/netns/${ns.name}`;
  t.teardown(async () => { await ns.remove(); await rm(conf, { recursive: true, force: true }); });
  await mkdir(conf, { recursive: true });
  await writeFile(`${conf}/resolv.conf`, 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n');
  const scenario = async (policy: TargetPolicy) => {
    const { stdout } = await run('ip', ['netns', 'exec', ns.name, process.execPath, '--import', 'tsx', SCENARIO, t.testdir(), JSON.stringify(policy)], { cwd: NODE_AGENT_DIR, timeout: 120_000 });
    return JSON.parse(stdout) as { results: ResultEnvelope[]; http_requests: number; dns_questions: string[] };
  };

  const anonymous = await scenario({ allow_private: false, allow_cidrs: [] });
  for (const r of anonymous.results) t.match(r, { success: false, error_class: 'blocked', error: /rebind\.test.*127\.0\.0\.1.*loopback/ }, `${r.type} refused`);
  t.equal(anonymous.http_requests, 0, 'the internal HTTP service saw nothing');
  t.notOk(anonymous.dns_questions.some((q) => q.startsWith('internal.test')), 'the internal resolver was never asked the query');
  t.ok(anonymous.dns_questions.includes('rebind.test A'), "the name was resolved by the node's resolver");

  const owner = await scenario({ allow_private: true, allow_cidrs: [] });
  t.match(owner.results, [{ success: true, output: { status_code: 200 } }, { success: true, output: { state: 'open' } }, { success: true, output: { answers: [{ value: /internal-record/ }] } }], "the owner's tasks reach them");
});
