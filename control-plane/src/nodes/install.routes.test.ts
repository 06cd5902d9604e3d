import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Config } from '../config/index.js';
import { testApp } from '../test-support/app.js';
import { BASE_URL_PLACEHOLDER, NO_PUBLIC_URL, bakeInstallScript } from './install.routes.js';

const SCRIPT = `#!/bin/sh\nset -eu\n${BASE_URL_PLACEHOLDER}\nmain() { :; }\nmain "$@"\n`;

t.test('bakeInstallScript', async (t) => {
  t.match(bakeInstallScript(SCRIPT, 'https://vantage.example.com/'), /^DEFAULT_URL='https:\/\/vantage\.example\.com'$/m);
  t.match(bakeInstallScript(SCRIPT, 'http://198.18.0.1:8080'), /^DEFAULT_URL='http:\/\/198\.18\.0\.1:8080'$/m);
  // Anything a shell could act on inside single quotes is refused: the script then asks for --url.
  for (const bad of ["http://x'; rm -rf /; '", 'http://a b', 'ftp://host', '', null, undefined]) {
    t.equal(bakeInstallScript(SCRIPT, bad), SCRIPT.replace(BASE_URL_PLACEHOLDER, NO_PUBLIC_URL), `not baked: ${String(bad)}`);
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

  // Without VANTAGE_PUBLIC_URL nothing from the request goes into the script, however it names the host.
  const unconfigured = await app({}).request('http://198.18.7.1:9000/install.sh', { headers: { host: 'attacker.example', 'x-forwarded-host': 'attacker.example' } });
  t.equal(unconfigured.status, 200);
  t.match(unconfigured.headers.get('content-type'), /^text\/x-shellscript/);
  const unconfiguredText = await unconfigured.text();
  t.notMatch(unconfiguredText, /attacker|198\.18\.7\.1/, 'the Host header is not baked in');
  t.match(unconfiguredText, /^DEFAULT_URL='__VANTAGE_NO_PUBLIC_URL__'$/m, 'the script asks for --url and names VANTAGE_PUBLIC_URL');

  const fromConfig = await app({ public_url: 'https://probe.example.net/vantage' }).request('http://127.0.0.1/install.sh');
  t.match(await fromConfig.text(), /^DEFAULT_URL='https:\/\/probe\.example\.net\/vantage'$/m, 'public_url wins');

  // A folder that cannot hold a bundle (a file is in the way): 503 with the build's reason.
  writeFileSync(bundleDir, 'not a folder');
  const unbuildable = await app({}).request('http://127.0.0.1/install/agent.tar.gz');
  t.equal(unbuildable.status, 503, 'the bundle cannot be built');
  const body = (await unbuildable.json()) as { error: { code: string; message: string } };
  t.equal(body.error.code, 'UNAVAILABLE');
  t.match(body.error.message, /could not be built on this control plane \(.*(EEXIST|ENOTDIR).*\).*build-bundle/);
  t.equal((await app({}).request('http://127.0.0.1/install/agent.tar.gz.sha256')).status, 503);
  rmSync(bundleDir);

  // A bundle as build-bundle.ts lays it out, built by hand (content is opaque to the route): served as it is.
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

t.test('a fresh control plane builds the agent bundle on the first request, once', { timeout: 300_000 }, async (t) => {
  const bundleDir = mkdtempSync(join(tmpdir(), 'vantage-install-build-'));
  t.teardown(() => rmSync(bundleDir, { recursive: true, force: true }));
  const { app } = await testApp(t, { config: { install_bundle_dir: bundleDir } });
  // Both requests arrive before any bundle exists: they share one build.
  const [sum, tarball] = await Promise.all([
    app.request('http://127.0.0.1/install/agent.tar.gz.sha256'),
    app.request('http://127.0.0.1/install/agent.tar.gz'),
  ]);
  t.equal(sum.status, 200, 'no manual build step');
  t.equal(tarball.status, 200);
  const manifest = JSON.parse(readFileSync(join(bundleDir, 'agent.json'), 'utf8'));
  t.match(manifest, { built_by: 'control-plane', sha256: /^[0-9a-f]{64}$/ });
  t.equal(await sum.text(), `${manifest.sha256}  ${manifest.file}\n`);
  t.equal(createHash('sha256').update(Buffer.from(await tarball.arrayBuffer())).digest('hex'), manifest.sha256, 'the tarball matches its checksum');
  const again = await app.request('http://127.0.0.1/install/agent.tar.gz.sha256');
  t.equal(again.status, 200);
  const after = JSON.parse(readFileSync(join(bundleDir, 'agent.json'), 'utf8'));
  // Rebuilt only when the agent's sources changed in between (someone editing them right now).
  if (after.source_sha256 === manifest.source_sha256) t.equal(after.built_at, manifest.built_at, 'cached: not built again');
  else t.comment('the agent sources changed during the test: rebuilt, as it should be');
});
