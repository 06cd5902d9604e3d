/**
 * Regenerates the zstd dictionary of stored check outputs (control-plane/src/checks/output-codec.ts,
 * format 2) from outputs shaped as the node agent makes them for every node check type
 * (docs/api/checks.md "Types", docs/api/probes.md), values drawn from a fixed seed:
 *
 *   npx tsx control-plane/scripts/train-output-dictionary.ts [--out FILE] [--samples DIR] [--dict-bytes 8192]
 *       [--seed 20261129] [--samples-only]
 *
 * Needs the `zstd` command (Debian package `zstd`, 1.5.4 made the committed file). Writes the
 * samples (one JSON text a file) to DIR (default: a temporary folder, removed after) and, unless
 * `--samples-only` (outputs to measure a dictionary on, with another `--seed`), trains
 * with `zstd --train` (fastcover, fixed parameters, one thread, so the same samples and zstd
 * version give the same bytes). The dictionary in the repository is NEVER replaced: stored
 * outputs of format 2 are only readable with exactly its bytes (output-codec.test.ts pins its
 * sha256). A better dictionary is a new format number and a new file.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { rttStats } from '../../node-agent/src/probes/ping.js';
import { httpResult, pingResult } from '../src/checks/test-support.js';

const { values } = parseArgs({ options: {
  out: { type: 'string', default: 'control-plane/src/checks/output-dictionary-v2.zdict' },
  samples: { type: 'string' },
  'dict-bytes': { type: 'string', default: '8192' },
  // Another seed draws other outputs of the same shapes: samples to measure the dictionary on.
  seed: { type: 'string', default: '20261129' },
  'samples-only': { type: 'boolean', default: false },
} });

// The dictionary's size, bytes: 4096 left the benchmarks' ping outputs 2-4 bytes larger than
// format 1 and every other type 5-30 bytes larger than with 8192; 16384 gained nothing more.
const DICT_BYTES = Number(values['dict-bytes']);
const PER_TYPE = 400;

let seed = Number(values.seed);
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const ip = () => `${pick(['198.18', '198.51', '203.0', '192.0', '93.184', '104.16', '172.67'])}.${int(0, 255)}.${int(1, 254)}`;
const host = () => pick(['example.com', 'api.example.com', 'www.example.org', 'shop.example.net', 'status.example.io', 'mail.example.com']);
const iso = (days: number) => new Date(Date.UTC(2026, 10, 29) + days * 86_400_000 + int(0, 86_399) * 1000).toISOString();
const timing = (total: number) => {
  const dns = int(0, 30); const tcp = int(1, 60); const tls = int(0, 80);
  return { dns_ms: dns, tcp_ms: tcp, tls_ms: tls, ttfb_ms: Math.max(1, total - dns - tcp - tls - 4), download_ms: int(0, 20) };
};
const TLS = [{ cipher: 'TLS_AES_128_GCM_SHA256', version: 'TLSv1.3' }, { cipher: 'TLS_AES_256_GCM_SHA384', version: 'TLSv1.3' }, { cipher: 'ECDHE-RSA-AES128-GCM-SHA256', version: 'TLSv1.2' }];

/** node-agent/src/probes/ping.ts: count echo requests, per packet seq (from 1), rtt_ms, ttl. */
function ping(): unknown {
  const count = pick([4, 4, 4, 3, 5, 10]);
  const base = 1 + rnd() * pick([5, 30, 120]);
  const loss = pick([0, 0, 0, 0, 0.25, 1]);
  const raw = Array.from({ length: count }, () => (rnd() < loss ? null : base + rnd() * pick([0.2, 0.5, 3])));
  const got = raw.filter((x): x is number => x !== null);
  const s = rttStats(got);
  const ttl = pick([52, 55, 57, 58, 60, 64, 118, 245]);
  return {
    resolved_address: ip(), packets_sent: count, packets_received: got.length, packet_loss: Math.round(((count - got.length) / count) * 10000) / 100,
    rtt_min_ms: s.min, rtt_avg_ms: s.avg, rtt_max_ms: s.max, rtt_stddev_ms: s.stddev,
    packets: raw.map((rtt, k) => ({ seq: k + 1, rtt_ms: rtt === null ? null : round3(rtt), ttl: rtt === null ? null : ttl })),
  };
}

/** The HTTP probe's output (http, https; keyword adds keyword_found). */
function http(keyword: boolean): unknown {
  const ms = int(20, 900); const size = int(200, 90_000); const h = host(); const secure = rnd() < 0.8;
  const status = pick([200, 200, 200, 200, 204, 301, 404, 503]);
  return {
    final_url: `${secure ? 'https' : 'http'}://${h}${pick(['/', '/health', '/api/status', '/login', '/v1/ping'])}`, status_code: status, response_ms: ms, response_size: size,
    headers: { 'content-type': pick(['text/html; charset=utf-8', 'application/json', 'application/json; charset=utf-8', 'text/plain']), 'content-length': String(size),
      date: new Date(Date.parse(iso(0))).toUTCString(), server: pick(['nginx', 'cloudflare', 'Apache', 'envoy', 'gws']),
      ...(rnd() < 0.5 ? { 'cache-control': pick(['no-cache', 'max-age=0, private, must-revalidate', 'public, max-age=300']) } : {}),
      ...(rnd() < 0.4 ? { vary: 'Accept-Encoding', 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}) },
    timing: timing(ms), tls: secure ? pick(TLS) : null,
    certificate: secure ? { subject: h, issuer: pick(['R3', 'R10', 'E5', 'GTS CA 1C3']), not_before: iso(-int(1, 80)), not_after: iso(int(1, 89)), days_left: int(1, 89), san: [h, `www.${h}`] } : null,
    redirects: status === 301 || rnd() < 0.1 ? [{ url: `http://${h}/`, status_code: 301 }] : [], resolved_address: ip(), body_truncated: false,
    certificate_error: null, ...(keyword ? { keyword_found: rnd() < 0.9 } : {}),
  };
}

/** llm_endpoint, tool_api, rag. */
function agent(): unknown {
  const ms = int(150, 4000); const prompt = int(5, 400); const completion = int(1, 300);
  return {
    final_url: `https://${host()}${pick(['/v1/chat/completions', '/v1/completions', '/mcp', '/search'])}`, resolved_address: ip(), status_code: pick([200, 200, 429, 500]),
    latency_ms: ms, timing: timing(ms), response_size: int(200, 8000), body_truncated: false, model: pick(['gpt-4o-mini', 'gpt-4.1', 'llama-3.1-8b-instruct', null]),
    prompt_tokens: prompt, completion_tokens: completion, tokens_used: prompt + completion,
    response_preview: `{"id":"chatcmpl-${int(100000, 999999)}","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"pong"}}]}`,
    missing_fields: rnd() < 0.9 ? [] : ['$.choices[0].message.content'],
  };
}

/** The TCP probe's output plus expected, banner, banner_matched. */
function tcp(): unknown {
  const open = rnd() < 0.9;
  return { resolved_address: ip(), port: pick([22, 25, 443, 3306, 5432, 6379]), connect_ms: open ? round3(rnd() * 40) : null, state: open ? 'open' : pick(['closed', 'filtered']),
    expected: pick(['open', 'open', 'closed']), banner: rnd() < 0.3 ? pick(['SSH-2.0-OpenSSH_9.2p1 Debian-2', '220 mail.example.com ESMTP Postfix', '+PONG']) : null, banner_matched: rnd() < 0.3 ? true : null };
}

/** The DNS probe's output plus matched_values, missing_values. */
function dns(): unknown {
  const type = pick(['A', 'A', 'AAAA', 'MX', 'TXT', 'CNAME']); const name = host();
  const value = type === 'A' ? ip() : type === 'AAAA' ? `2001:db8::${int(1, 9999)}` : type === 'MX' ? `10 mail.${name}` : type === 'TXT' ? 'v=spf1 -all' : `cdn.${name}`;
  const answers = Array.from({ length: int(1, 3) }, () => ({ name, type, ttl: pick([60, 300, 3600]), value }));
  return { server: pick(['198.18.0.53', '1.1.1.1', '8.8.8.8', '9.9.9.9']), protocol: pick(['udp', 'udp', 'tcp']), rcode: pick(['NOERROR', 'NOERROR', 'NOERROR', 'NXDOMAIN', 'SERVFAIL']),
    query_ms: round3(rnd() * 50), truncated: false, answers, authorities: [], matched_values: rnd() < 0.7 ? [value] : [], missing_values: [] };
}

/** The traceroute probe's output plus path_changed. */
function traceroute(): unknown {
  const hops = Array.from({ length: int(3, 14) }, (_, i) => {
    const silent = rnd() < 0.15;
    return { hop: i + 1, address: silent ? null : ip(), rtts_ms: silent ? [null, null, null] : [0, 0, 0].map(() => round3(1 + i * 3 + rnd() * 4)) };
  });
  return { resolved_address: ip(), protocol: pick(['icmp', 'udp', 'tcp']), destination_reached: rnd() < 0.85, hops, path_changed: pick([false, false, true, null]) };
}

/** ssl_expiry. */
function ssl(): unknown {
  const h = host(); const left = int(-3, 89);
  return { resolved_address: ip(), port: 443, servername: h, handshake_ms: int(5, 300), tls_version: pick(['TLSv1.3', 'TLSv1.2']), cipher: pick(TLS).cipher,
    subject: `CN=${h}`, issuer: pick(['CN=R3,O=Let\'s Encrypt,C=US', 'CN=R10,O=Let\'s Encrypt,C=US', 'CN=GTS CA 1C3,O=Google Trust Services LLC,C=US']),
    not_before: iso(left - 90), not_after: iso(left), days_until_expiry: left, san: [`DNS:${h}`, `DNS:www.${h}`],
    fingerprint_sha256: Array.from({ length: 32 }, () => int(0, 255).toString(16).padStart(2, '0').toUpperCase()).join(':'),
    chain_valid: left > 0, chain_error: left > 0 ? null : 'CERT_HAS_EXPIRED', hostname_match: true };
}

/** rbl. */
function rbl(): unknown {
  const addresses = Array.from({ length: int(1, 2) }, ip);
  const zones = ['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org', 'psbl.surriel.com', 'dnsbl-1.uceprotect.net'];
  const listings = addresses.flatMap((address) => zones.map((zone) => {
    const listed = rnd() < 0.05;
    return { address, zone, listed, codes: listed ? ['127.0.0.2'] : [], reasons: listed ? [`https://check.spamhaus.org/query/ip/${address}`] : [], error: null };
  }));
  return { server: pick(['198.18.0.53', '1.1.1.1']), addresses, listings, listed_count: listings.filter((l) => l.listed).length };
}

const TYPES: Record<string, () => unknown> = {
  ping, http: () => http(false),
  // As the benchmarks and tests send them (checks/test-support.ts).
  benchping: () => pingResult('m', iso(0), 10 + rnd() * 30).output, benchhttp: () => httpResult('m', iso(0), { response_ms: int(20, 300) }).output, keyword: () => http(true), agent, tcp, dns, traceroute, ssl, rbl,
};

const dir = values.samples ?? mkdtempSync(join(tmpdir(), 'output-samples-'));
mkdirSync(dir, { recursive: true });
try {
  for (const [name, make] of Object.entries(TYPES)) {
    for (let i = 0; i < PER_TYPE; i++) writeFileSync(join(dir, `${name}-${String(i).padStart(4, '0')}.json`), JSON.stringify(make()));
  }
  if (!values['samples-only']) {
    execFileSync('zstd', ['--train-fastcover=k=200,d=8,f=20,accel=1', '-T1', '-q', '-f', `--maxdict=${DICT_BYTES}`, '--dictID=2', '-r', dir, '-o', values.out], { stdio: 'inherit' });
    console.log(`wrote ${values.out} from ${Object.keys(TYPES).length * PER_TYPE} samples`);
  }
} finally {
  if (values.samples === undefined) rmSync(dir, { recursive: true, force: true });
}
