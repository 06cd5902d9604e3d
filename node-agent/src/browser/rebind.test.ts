/**
 * DNS rebinding against browser checks, with the real Chromium in a test network namespace whose
 * resolver answers a scripted sequence for `rebind.test` (test-support/rebind-browser-scenario.ts):
 * a name that passes the page-level check and then resolves to a refused address is refused, and
 * within a check every connection to a name goes to the one address that was checked (Chromium
 * never resolves the name itself).
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import type { BrowserCheckOutput } from '@vantage/shared-protocol';
import { createNetns } from '../probes/test-support/netns.js';
import { SKIP_WITHOUT_CHROMIUM } from './test-support/harness.js';

const run = promisify(execFile);
const NODE_AGENT_DIR = fileURLToPath(new URL('../../', import.meta.url));
const SCENARIO = fileURLToPath(new URL('./test-support/rebind-browser-scenario.ts', import.meta.url));

interface ScenarioOutput {
  result: { success: boolean; error: string | null; error_class: string | null; output: BrowserCheckOutput };
  questions: string[];
  internal_hits: string[];
}

const skip = SKIP_WITHOUT_CHROMIUM || (process.getuid?.() !== 0 ? 'network namespaces need root' : false);

t.test('DNS rebinding against a browser check', { skip }, async (t) => {
  const ns = await createNetns('brebind');
  const conf = `/etc/netns/${ns.name}`;
  t.teardown(async () => { await ns.remove(); await rm(conf, { recursive: true, force: true }); });
  await mkdir(conf, { recursive: true });
  await writeFile(`${conf}/resolv.conf`, 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n');
  const scenario = async (answers: string[]): Promise<ScenarioOutput> => {
    const { stdout } = await run('ip', ['netns', 'exec', ns.name, process.execPath, '--import', 'tsx', SCENARIO, JSON.stringify(answers)], { cwd: NODE_AGENT_DIR, timeout: 180_000 });
    return JSON.parse(stdout) as ScenarioOutput;
  };
  const aQuestions = (o: ScenarioOutput) => o.questions.filter((q) => q === 'rebind.test A').length;

  t.test('a name that passed the page-level check and then resolves to a refused address is refused', async (t) => {
    const o = await scenario(['127.0.0.1', '127.0.0.2']);
    t.match(o.result, { success: false, error_class: 'blocked', error: 'target rebind.test resolves to 127.0.0.2 (loopback), which this check may not reach' });
    t.same(o.internal_hits, [], 'the internal service saw nothing');
    t.equal(aQuestions(o), 2, 'asked once by the page-level check and once by the proxy session; never by Chromium');
  });

  t.test('within a check every connection to the name goes to the one checked address', async (t) => {
    const o = await scenario(['127.0.0.1', '127.0.0.1', '127.0.0.2']);
    t.equal(o.result.error, null);
    t.equal(o.result.success, true);
    const urls = o.result.output.resources.map((r) => new URL(r.url).pathname).sort();
    t.same(urls, ['/a.png', '/b.png', '/c.png', '/data', '/page'], 'the page, three images and a fetch, all from rebind.test');
    t.ok(o.result.output.resources.every((r) => r.status === 200), 'all answered by the page server');
    t.same(o.internal_hits, [], 'the internal service saw nothing, although the resolver now answers its address');
    t.equal(aQuestions(o), 2, 'no question after the proxy session\'s: Chromium never resolved the name');
    t.same([...new Set(o.questions)].sort(), ['rebind.test A', 'rebind.test AAAA'], 'the agent\'s look-ups only: no HTTPS records, no background hosts from Chromium');
  });
});
