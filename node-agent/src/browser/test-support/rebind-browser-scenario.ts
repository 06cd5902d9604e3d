/*
 * Test helper, run inside a test network namespace whose /etc/resolv.conf says
 * `nameserver 127.0.0.1` (`ip netns exec` bind-mounts /etc/netns/<ns>/resolv.conf over it), so
 * the agent's resolver asks the resolver started here. That resolver answers `rebind.test A`
 * from a script: the n-th question gets `answers[n]` (the last one repeats), as a rebinding name
 * would. A page server listens on 127.0.0.1:P (the check's policy allows 127.0.0.1/32) and an
 * "internal" service on 127.0.0.2:P, the same port, so any connection made to the second answer
 * lands there. Runs one browser check of http://rebind.test:P/page with the real Chromium and
 * prints the outcome, the questions the resolver got and what reached the internal service as JSON.
 * Usage: ip netns exec <ns> node --import tsx rebind-browser-scenario.ts '<answers JSON>'
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startScriptedResolver } from '../../probes/test-support/scripted-resolver.js';
import { check, testPool } from './harness.js';
import { tinyPng } from './pages.js';

const answers = JSON.parse(process.argv[2]!) as string[];

let asked = 0;
const resolver = await startScriptedResolver((name, type) => {
  if (name !== 'rebind.test') return null;
  return type === 'A' ? [{ name, type: 'A', ttl: 0, data: answers[Math.min(asked++, answers.length - 1)]! }] : [];
});
const questions = resolver.questions;

const PAGE = '<!doctype html><html><body><h1>Rebind</h1><img src="/a.png"><img src="/b.png"><img src="/c.png">'
  + '<script>fetch("/data").then((r) => r.text()).then((t) => { document.body.dataset.fetched = t; });</script></body></html>';
const page = http.createServer((req, res) => {
  if (req.url === '/page') { res.writeHead(200, { 'content-type': 'text/html' }); res.end(PAGE); return; }
  if (req.url?.endsWith('.png')) { res.writeHead(200, { 'content-type': 'image/png' }); res.end(tinyPng()); return; }
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('public data');
});
await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
const port = (page.address() as AddressInfo).port;
const internal_hits: string[] = [];
const internal = http.createServer((req, res) => { internal_hits.push(req.url ?? ''); res.writeHead(200, { 'content-type': 'text/html' }); res.end('<h1>INTERNAL SECRET</h1>'); });
await new Promise<void>((resolve) => internal.listen(port, '127.0.0.2', resolve));

const pool = testPool();
const outcome = await check(pool, `http://rebind.test:${port}/page`, { assertions: [{ kind: 'renderable' }, { kind: 'resources_all_ok' }, { kind: 'text_present', value: 'Rebind' }] }, {
  policy: { allow_private: false, allow_cidrs: ['127.0.0.1/32'] },
});
await pool.close();
const { artifacts: _artifacts, ...result } = outcome;
process.stdout.write(`${JSON.stringify({ result, questions, internal_hits })}\n`);
page.closeAllConnections();
internal.closeAllConnections();
page.close();
internal.close();
resolver.close();
