import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * Real peers for the certificate tests: BIND 9 (`named`) as the authoritative server of a test
 * zone accepting TSIG-signed RFC 2136 updates, and Pebble (an RFC 8555 test CA) validating DNS-01
 * against that BIND. Both run as child processes on free loopback ports, stopped at teardown.
 */

interface Teardown { teardown(fn: () => unknown): void }

/** A port free for both TCP and UDP on 127.0.0.1 (named listens on both). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
    });
    const udpFree = await new Promise<boolean>((resolve) => {
      const u = createSocket('udp4');
      u.once('error', () => resolve(false));
      u.bind(port, '127.0.0.1', () => u.close(() => resolve(true)));
    });
    if (udpFree) return port;
  }
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, child: ChildProcess, log: () => string, bound_ms = 60_000): Promise<void> {
  const until = Date.now() + bound_ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}):\n${log()}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not ready within ${bound_ms} ms:\n${log()}`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); });
}

/** A running BIND: its port, zone, TSIG key (hmac-sha256) and a `dig` of TXT records at a name. */
export interface TestBind {
  port: number;
  zone: string;
  key: { name: string; algorithm: 'hmac-sha256'; secret_base64: string };
  txt(fqdn: string): string[];
}

/** Start `named -g` for zone `zone` (NS ns1.<zone> at 127.0.0.1) with a fresh TSIG key allowed to change TXT records anywhere in it. */
export async function startBind(t: Teardown, zone = 'example.test'): Promise<TestBind> {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-bind-'));
  const port = await freePort();
  const keyConf = execFileSync('tsig-keygen', ['-a', 'hmac-sha256', 'vantage-acme'], { encoding: 'utf8' });
  const secret = /secret "([^"]+)"/.exec(keyConf)![1]!;
  writeFileSync(join(dir, 'key.conf'), keyConf);
  writeFileSync(join(dir, 'zone.db'), `$TTL 60\n@ IN SOA ns1.${zone}. admin.${zone}. 1 60 60 600 60\n@ IN NS ns1.${zone}.\nns1 IN A 127.0.0.1\n@ IN A 127.0.0.1\n`);
  writeFileSync(join(dir, 'named.conf'), `include "${dir}/key.conf";
options { directory "${dir}"; listen-on port ${port} { 127.0.0.1; }; listen-on-v6 { none; }; pid-file none;
  recursion no; dnssec-validation no; session-keyfile none; notify no; };
controls { };
zone "${zone}" { type primary; file "${dir}/zone.db"; update-policy { grant vantage-acme zonesub TXT; }; };
`);
  let out = '';
  const child = spawn('named', ['-g', '-u', process.getuid?.() === 0 ? 'root' : String(process.getuid?.()), '-c', join(dir, 'named.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  t.teardown(async () => { await stop(child); rmSync(dir, { recursive: true, force: true }); });
  await waitFor('named', () => /running/.test(out) && execFileSync('dig', ['+short', '+norecurse', '+time=2', '-p', String(port), '@127.0.0.1', zone, 'SOA'], { encoding: 'utf8' }).includes(`ns1.${zone}`), child, () => out);
  const txt = (fqdn: string) => execFileSync('dig', ['+short', '+norecurse', '-p', String(port), '@127.0.0.1', fqdn, 'TXT'], { encoding: 'utf8' })
    .split('\n').filter(Boolean).map((l) => l.replace(/^"|"$/g, ''));
  return { port, zone, key: { name: 'vantage-acme', algorithm: 'hmac-sha256', secret_base64: secret }, txt };
}

/** A running Pebble: its directory URL and the CA file that makes its TLS listener trusted. */
export interface TestPebble {
  directory_url: string;
  ca_file: string;
}

/**
 * Start Pebble with a fresh TLS certificate for 127.0.0.1 (made with openssl), resolving DNS-01
 * challenges at `dns_port` on 127.0.0.1 (the test BIND). No random validation sleeps, no
 * rejected nonces, no authorization reuse: every order is validated for real.
 */
export async function startPebble(t: Teardown, dns_port: number): Promise<TestPebble> {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-pebble-'));
  const [port, mgmt, http, tls] = [await freePort(), await freePort(), await freePort(), await freePort()];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  writeFileSync(join(dir, 'pebble.json'), JSON.stringify({ pebble: {
    listenAddress: `127.0.0.1:${port}`, managementListenAddress: `127.0.0.1:${mgmt}`, certificate: join(dir, 'cert.pem'), privateKey: join(dir, 'key.pem'),
    httpPort: http, tlsPort: tls, ocspResponderURL: '', externalAccountBindingRequired: false,
  } }));
  let out = '';
  const child = spawn('pebble', ['-config', join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dns_port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
  });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  t.teardown(async () => { await stop(child); rmSync(dir, { recursive: true, force: true }); });
  await waitFor('pebble', () => /Listening on/.test(out), child, () => out);
  return { directory_url: `https://127.0.0.1:${port}/dir`, ca_file: join(dir, 'cert.pem') };
}
