/*
 * SSL audit time beside openssl s_client making the same separate handshakes (testssl.sh-style:
 * one default handshake asking for OCSP stapling, then one per TLS version 1.0-1.3), against one
 * TLS server on loopback that offers TLS 1.0-1.3 and staples OCSP. Rounds interleave ours and the
 * peer's; medians and p90 printed. Asserts nothing.
 *
 *   npx tsx test/bench/ssl-audit-bench.ts [--rounds 20]
 *
 * Ours: createSslAuditService (control-plane/src/lookups/ssl-audit.ts) as the route runs it, the
 * five handshakes at once plus HEAD / for HSTS. Peer: `openssl s_client` processes, run one after
 * the other (as testssl.sh does) and, for a like-for-like figure, all five at once.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { uptime, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../control-plane/src/config/index.js';
import { createOutboundConnector } from '../../control-plane/src/delivery/connector.js';
import { createOutboundPolicy } from '../../control-plane/src/delivery/outbound-policy.js';
import { createSslAuditService } from '../../control-plane/src/lookups/ssl-audit.js';
import { makeTestPki } from '../../node-agent/src/probes/test-support/ssl-audit-pki.js';
import { fmt, median, quantile } from './lib/stats.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
const ROUNDS = Number(values.rounds);

const pki = makeTestPki();
const server = createServer({ key: pki.good.key, cert: pki.good.cert, minVersion: 'TLSv1', maxVersion: 'TLSv1.3', ciphers: 'DEFAULT:@SECLEVEL=0' }, (_req, res) => {
  res.setHeader('strict-transport-security', 'max-age=31536000');
  res.end('ok');
});
server.on('OCSPRequest', (_c: Buffer, _i: Buffer, cb: (e: Error | null, r?: Buffer) => void) => cb(null, pki.ocsp_good));
server.on('tlsClientError', () => {});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;

const config = loadConfig({}, { extra_ca_file: pki.ca_file, delivery_allow_cidrs: ['127.0.0.0/8', '::1/128'], lookup_timeout_ms: 5000 });
const connector = createOutboundConnector(createOutboundPolicy(config));
const service = createSslAuditService(config, connector);

/** One s_client handshake; resolves when the process exits. */
function sClient(extra: string[]): Promise<void> {
  return new Promise((resolve) => {
    const p = spawn('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'localhost', '-CAfile', pki.ca_file, '-cipher', 'DEFAULT:@SECLEVEL=0', ...extra], { stdio: ['pipe', 'ignore', 'ignore'] });
    p.stdin.end('Q\n');
    p.on('exit', () => resolve());
  });
}
const PEER_RUNS = [['-status'], ['-tls1'], ['-tls1_1'], ['-tls1_2'], ['-tls1_3']];

const ours: number[] = [];
const peerSeq: number[] = [];
const peerPar: number[] = [];
const time = async (f: () => Promise<unknown>) => { const s = performance.now(); await f(); return performance.now() - s; };
await service.audit('localhost', port); // warm-up (contexts, first DNS look-up)
for (let i = 0; i < ROUNDS; i++) {
  ours.push(await time(() => service.audit('localhost', port)));
  peerSeq.push(await time(async () => { for (const a of PEER_RUNS) await sClient(a); }));
  peerPar.push(await time(() => Promise.all(PEER_RUNS.map((a) => sClient(a)))));
}
const check = await service.audit('localhost', port);
console.log(`# SSL audit vs openssl s_client (${ROUNDS} interleaved rounds; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; up ${Math.round(uptime())} s)`);
console.log(`audit answer: grade ${check.grade}, versions ${check.tls_versions.filter((v) => v.supported).map((v) => v.version).join(' ')}, ocsp ${check.ocsp_status}`);
console.log('| what | median ms | p90 ms |');
console.log('|---|---|---|');
for (const [name, xs] of [['ours: SSL audit (5 handshakes at once + HSTS)', ours], ['peer: openssl s_client x5, one after another', peerSeq], ['peer: openssl s_client x5, all at once', peerPar]] as const) {
  console.log(`| ${name} | ${fmt(median([...xs]))} | ${fmt(quantile([...xs], 0.9))} |`);
}
await connector.close();
server.close();
pki.cleanup();
