/**
 * The targets host of the e2e test network (docs/architecture/test-network.md), run as a child
 * process inside its namespace by network.ts:
 *
 *   node --import tsx test/e2e/targets-host.ts <config.json>
 *
 * Serves on every address in `hosts`: HTTP on `http_port` and HTTPS (the test CA's leaf) on
 * `https_port` with the routes below, the split DNS server on `dns_port` (UDP + TCP), a TCP
 * listener on `tcp_open_port` that accepts and closes (nothing listens on `tcp_closed_port`, so
 * connects there are refused with RST). Prints one line `{"ready":true}` on stdout when all
 * listen; exits 1 with the reason on stderr when one cannot; SIGTERM closes everything.
 *
 * HTTP routes: `/` 200 "targets host"; `/status/N` answers N; `/redirect` 302 → `/`;
 * `/delay/N` waits N ms (at most 10 000) then 200; `/page` a small HTML page whose heading says
 * "All systems operational" (keyword and browser checks); `/llm` (any method) an OpenAI-style chat
 * completion (JSON with `model`, `choices[0].message.content`, `usage`: agent-endpoint checks).
 * Every response carries `server: vantage-e2e`.
 *
 * With `switch_https_port`, `control_port` and `dnsbl_zone` set (the monitoring tests), it also
 * serves HTTPS on the switchable port and takes switch commands (targets-switches.ts) on
 * 127.0.0.1:`control_port`.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { startSplitDns, type SplitName } from './split-dns.js';
import { denyGate, startSwitches } from './targets-switches.js';

/** The config file's shape (written by network.ts). */
export interface TargetsHostConfig {
  hosts: string[];
  http_port: number;
  https_port: number;
  dns_port: number;
  tcp_open_port: number;
  tcp_closed_port: number;
  cert_file: string;
  key_file: string;
  dns_names: SplitName[];
  /** HTTPS with a certificate the switches swap between `cert_file` and `expired_cert_file`. */
  switch_https_port?: number;
  expired_cert_file?: string;
  expired_key_file?: string;
  /** Loopback port of the switch server (targets-switches.ts). */
  control_port?: number;
  /** The test DNSBL zone the DNS server answers for (`bl.e2e.test`). */
  dnsbl_zone?: string;
}

const PAGE = '<!doctype html><html><head><title>Vantage e2e</title></head><body><h1 id="status">All systems operational</h1></body></html>\n';
const COMPLETION = { id: 'chatcmpl-e2e', object: 'chat.completion', model: 'e2e-model', choices: [{ index: 0, message: { role: 'assistant', content: 'pong' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } };

/** The HTTP routes above (shared by HTTP and HTTPS). */
export const route: http.RequestListener = (req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  res.setHeader('server', 'vantage-e2e');
  const status = /^\/status\/(\d{3})$/.exec(path);
  const delay = /^\/delay\/(\d+)$/.exec(path);
  if (path === '/') {
    res.setHeader('content-type', 'text/plain');
    res.end('targets host\n');
  } else if (status) {
    res.writeHead(Number(status[1]));
    res.end(`status ${status[1]}\n`);
  } else if (path === '/page') {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(PAGE);
  } else if (path === '/llm') {
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(COMPLETION));
  } else if (path === '/redirect') {
    res.writeHead(302, { location: '/' });
    res.end();
  } else if (delay) {
    const timer = setTimeout(() => res.end(`waited ${delay[1]} ms\n`), Math.min(Number(delay[1]), 10_000));
    res.on('close', () => clearTimeout(timer));
  } else {
    res.writeHead(404);
    res.end('not found\n');
  }
};

function listen(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, ipv6Only: net.isIPv6(host) }, () => { server.off('error', reject); resolve(); });
  });
}

async function main(): Promise<void> {
  const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as TargetsHostConfig;
  const tls = { cert: readFileSync(config.cert_file, 'utf8'), key: readFileSync(config.key_file, 'utf8') };
  const servers: net.Server[] = [];
  // Plain HTTP goes through the deny gate (empty unless a test denies a subnet).
  const deny: string[] = [];
  const gated = denyGate(route, deny);
  const plains: http.Server[] = [];
  const switchable: https.Server[] = [];
  for (const host of config.hosts) {
    const plain = http.createServer(gated);
    const secure = https.createServer(tls, route);
    const tcp = net.createServer((socket) => { socket.on('error', () => {}); socket.end(); });
    for (const [server, port] of [[secure, config.https_port], [tcp, config.tcp_open_port]] as const) {
      await listen(server, port, host);
      servers.push(server);
    }
    await listen(plain, config.http_port, host);
    plains.push(plain);
    if (config.switch_https_port) {
      const flip = https.createServer(tls, route);
      await listen(flip, config.switch_https_port, host);
      switchable.push(flip);
    }
  }
  const dns = await startSplitDns({ names: config.dns_names, hosts: config.hosts, port: config.dns_port });
  if (config.control_port && config.expired_cert_file && config.expired_key_file && config.dnsbl_zone) {
    const expired = { cert: readFileSync(config.expired_cert_file, 'utf8'), key: readFileSync(config.expired_key_file, 'utf8') };
    servers.push(await startSwitches(config.control_port, {
      http: { servers: plains, port: config.http_port, hosts: config.hosts, make: () => http.createServer(gated), deny },
      tls: { servers: switchable, valid: tls, expired },
      dns_names: config.dns_names, dnsbl_zone: config.dnsbl_zone,
    }));
  }
  const stop = () => {
    for (const s of [...servers, ...plains, ...switchable]) {
      (s as http.Server).closeAllConnections?.();
      s.close();
    }
    void dns.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
}

main().catch((err) => {
  process.stderr.write(`targets host failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
