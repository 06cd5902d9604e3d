import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Config } from '../config/index.js';
import { testApp } from '../test-support/app.js';
import { BASE_URL_PLACEHOLDER, bakeInstallScript } from './install.js';

const SCRIPT = `#!/bin/sh\nset -eu\n${BASE_URL_PLACEHOLDER}\nmain() { :; }\nmain "$@"\n`;

t.test('bakeInstallScript', async (t) => {
  t.match(bakeInstallScript(SCRIPT, 'https://vantage.example.com/'), /^DEFAULT_URL='https:\/\/vantage\.example\.com'$/m);
  t.match(bakeInstallScript(SCRIPT, 'http://198.18.0.1:8080'), /^DEFAULT_URL='http:\/\/198\.18\.0\.1:8080'$/m);
  // Anything a shell could act on inside single quotes is refused: the placeholder stays.
  for (const bad of ["http://x'; rm -rf /; '", 'http://a b', 'ftp://host', '', null]) {
    t.equal(bakeInstallScript(SCRIPT, bad), SCRIPT, `not baked: ${String(bad)}`);
  }
});

t.test('GET /install.sh and the bundle', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-install-route-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const scriptPath = join(dir, 'install.sh');
  writeFileSync(scriptPath, SCRIPT);
  const bundleDir = join(dir, 'dist');
  const base: Partial<Config> = { install_script_path: scriptPath, install_bundle_dir: bundleDir };
  const { app: plain } = await testApp(t, { config: base });
  const { app: withPublicUrl } = await testApp(t, { config: { ...base, public_url: 'https://probe.example.net/vantage' } });
  const app = (o: { public_url?: string }) => (o.public_url ? withPublicUrl : plain);

  const fromOrigin = await app({}).request('http://198.18.7.1:9000/install.sh');
  t.equal(fromOrigin.status, 200);
  t.match(fromOrigin.headers.get('content-type'), /^text\/x-shellscript/);
  t.match(await fromOrigin.text(), /^DEFAULT_URL='http:\/\/198\.18\.7\.1:9000'$/m, 'request origin baked in');

  const fromConfig = await app({ public_url: 'https://probe.example.net/vantage' }).request('http://127.0.0.1/install.sh');
  t.match(await fromConfig.text(), /^DEFAULT_URL='https:\/\/probe\.example\.net\/vantage'$/m, 'public_url wins');

  const missing = await app({}).request('http://127.0.0.1/install/agent.tar.gz');
  t.equal(missing.status, 503, 'no bundle built yet');
  const body = (await missing.json()) as { error: { code: string; message: string } };
  t.equal(body.error.code, 'UNAVAILABLE');
  t.match(body.error.message, /build-bundle/);
  t.equal((await app({}).request('http://127.0.0.1/install/agent.tar.gz.sha256')).status, 503);

  // A bundle as build-bundle.ts lays it out (content is opaque to the route).
  mkdirSync(bundleDir);
  const tarball = Buffer.from('not really a tarball');
  const sha256 = 'a'.repeat(64);
  writeFileSync(join(bundleDir, 'vantage-agent-9.9.9.tar.gz'), tarball);
  writeFileSync(join(bundleDir, 'agent.json'), JSON.stringify({ version: '9.9.9', file: 'vantage-agent-9.9.9.tar.gz', sha256 }));
  const res = await app({}).request('http://127.0.0.1/install/agent.tar.gz');
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/gzip');
  t.equal(res.headers.get('x-vantage-agent-version'), '9.9.9');
  t.same(Buffer.from(await res.arrayBuffer()), tarball, 'the file named by the manifest');
  const sum = await app({}).request('http://127.0.0.1/install/agent.tar.gz.sha256');
  t.equal(await sum.text(), `${sha256}  vantage-agent-9.9.9.tar.gz\n`);

  // A manifest naming a path outside the folder is refused.
  writeFileSync(join(bundleDir, 'agent.json'), JSON.stringify({ version: '1', file: '../install.sh', sha256 }));
  t.equal((await app({}).request('http://127.0.0.1/install/agent.tar.gz')).status, 503);
});
