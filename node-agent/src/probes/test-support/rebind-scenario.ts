/*
 * Test helper, run inside a test network namespace whose /etc/resolv.conf says
 * `nameserver 127.0.0.1` (`ip netns exec` bind-mounts /etc/netns/<ns>/resolv.conf over it):
 * the node's own resolver answers `rebind.test` with 127.0.0.1, as a rebinding name would that
 * looked public to the control plane. Starts that resolver (UDP 127.0.0.1:53, which also answers
 * `internal.test TXT` like an internal DNS server), an internal HTTP service on 127.0.0.1, and a
 * real agent whose operator allows private targets; sends http, tcp and dns (server
 * `rebind.test`) tasks under the requester policy given in argv[3]; prints the results and what
 * reached the internal services as JSON.
 * Usage: ip netns exec <ns> node --import tsx rebind-scenario.ts <state_dir> '<policy JSON>'
 */
import type { TargetPolicy } from '@vantage/shared-protocol';
import { runAgentTasks } from './agent-tasks.js';
import { startHttpServer } from './http-server.js';
import { startScriptedResolver } from './scripted-resolver.js';

const [state_dir, policy_json] = process.argv.slice(2);
const policy = JSON.parse(policy_json!) as TargetPolicy;

const resolver = await startScriptedResolver((name, type) => {
  if (name === 'rebind.test') return type === 'A' ? [{ name, type: 'A', ttl: 0, data: '127.0.0.1' }] : [];
  if (name === 'internal.test') return type === 'TXT' ? [{ name, type: 'TXT', ttl: 60, data: ['internal-record'] }] : [];
  return null;
});
const questions = resolver.questions;
const internal = await startHttpServer({ host: '127.0.0.1' });

const results = await runAgentTasks({
  state_dir: state_dir!,
  node_policy: { allow_private: true, allow_cidrs: [] },
  tasks: [
    { check: { type: 'http', target: `http://rebind.test:${internal.port}/ok`, params: { timeout_ms: 5000 } }, policy },
    { check: { type: 'tcp', target: `rebind.test:${internal.port}`, params: {} }, policy },
    { check: { type: 'dns', target: 'internal.test', params: { record_type: 'TXT', server: 'rebind.test', timeout_ms: 3000 } }, policy },
  ],
});
process.stdout.write(`${JSON.stringify({ results, http_requests: internal.seen.length, dns_questions: questions })}\n`);
await internal.close();
resolver.close();
