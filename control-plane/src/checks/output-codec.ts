import { deflateRawSync, inflateRawSync } from 'node:zlib';

/*
 * Check outputs as stored (checks.output_z, migration 0030): the output's JSON text compressed with
 * raw DEFLATE (RFC 1951) primed with a preset dictionary of typical outputs. A ping output of
 * ~320 characters becomes ~55 bytes, an http one ~100: the output is most of a check's row, and
 * Postgres compresses nothing under 2 kB itself. The first byte names the format, so the
 * dictionary can change later without making stored rows unreadable:
 *   0 = the JSON text as is (UTF-8), 1 = raw DEFLATE with DICTIONARY_V1.
 */

/**
 * Version 1 of the dictionary: JSON texts shaped like the outputs of every node check type
 * (docs/api/checks.md), the most frequent (ping, http) last, where matches cost least. NEVER
 * edit it: stored outputs of format 1 are only readable with exactly these bytes (a test pins
 * its sha256). A better dictionary is a new format number.
 */
const DICTIONARY_V1 = [
  '{"server":"198.18.0.53","addresses":["198.18.0.1"],"listings":[{"address":"198.18.0.1","zone":"zen.spamhaus.org","listed":false,"codes":[],"reasons":[],"error":null}],"listed_count":0}',
  '{"resolved_address":"198.18.0.1","port":443,"servername":"example.com","handshake_ms":12,"tls_version":"TLSv1.3","cipher":"TLS_AES_256_GCM_SHA384","subject":"CN=example.com","issuer":"CN=R3,O=Let\'s Encrypt,C=US","not_before":"2026-09-01T00:00:00.000Z","not_after":"2026-12-01T00:00:00.000Z","days_until_expiry":42,"san":["example.com","www.example.com"],"fingerprint_sha256":"","chain_valid":true,"chain_error":null,"hostname_match":true}',
  '{"final_url":"https://example.com/v1/chat/completions","resolved_address":"198.18.0.1","status_code":200,"latency_ms":812,"timing":{"dns_ms":1,"tcp_ms":10,"tls_ms":20,"ttfb_ms":750,"download_ms":4},"response_size":1024,"body_truncated":false,"model":"gpt-4o-mini","prompt_tokens":12,"completion_tokens":30,"tokens_used":42,"response_preview":"{\\"id\\":\\"chatcmpl-","missing_fields":[]}',
  '{"resolved_address":"198.18.0.1","protocol":"icmp","destination_reached":true,"hops":[{"hop":1,"address":"198.18.0.1","rtts_ms":[0.312,0.298,0.305]},{"hop":2,"address":null,"rtts_ms":[null,null,null]}],"path_changed":false}',
  '{"server":"198.18.0.53","protocol":"udp","rcode":"NOERROR","query_ms":1.2,"truncated":false,"answers":[{"name":"example.com","type":"A","ttl":300,"value":"198.18.0.1"}],"authorities":[],"matched_values":[],"missing_values":[]}',
  '{"resolved_address":"198.18.0.1","port":443,"connect_ms":0.42,"state":"open","expected":"open","banner":null,"banner_matched":null}',
  '{"final_url":"https://example.com/","status_code":200,"response_ms":87,"response_size":1256,"headers":{"content-type":"text/html; charset=utf-8","content-length":"1256","cache-control":"max-age=0, private, must-revalidate","date":"Sun, 22 Nov 2026 10:00:00 GMT","server":"nginx","strict-transport-security":"max-age=31536000","vary":"Accept-Encoding","etag":"W/\\"4e8\\"","last-modified":"Sun, 22 Nov 2026 09:00:00 GMT","x-content-type-options":"nosniff","x-frame-options":"SAMEORIGIN","content-encoding":"gzip","connection":"keep-alive"},"timing":{"dns_ms":1,"tcp_ms":10,"tls_ms":20,"ttfb_ms":52,"download_ms":4},"tls":{"cipher":"TLS_AES_128_GCM_SHA256","version":"TLSv1.3"},"certificate":{"subject":"example.com","issuer":"R3","not_before":"2026-09-01T00:00:00.000Z","not_after":"2026-12-01T00:00:00.000Z","days_left":9,"san":["example.com"]},"redirects":[],"resolved_address":"198.18.0.1","body_truncated":false,"certificate_error":null,"keyword_found":true}',
  '{"resolved_address":"198.18.0.1","packets_sent":4,"packets_received":4,"packet_loss":0,"rtt_min_ms":12.1,"rtt_avg_ms":12.4,"rtt_max_ms":13.3,"rtt_stddev_ms":0.52,"packets":[{"seq":0,"rtt_ms":12.1,"ttl":57},{"seq":1,"rtt_ms":12.2,"ttl":57},{"seq":2,"rtt_ms":12.5,"ttl":57},{"seq":3,"rtt_ms":13.3,"ttl":57}]}',
].join('');

/** The dictionary of format 1 (exported for the test that pins it). */
export const OUTPUT_DICTIONARY_V1 = Buffer.from(DICTIONARY_V1, 'utf8');

// A 4 kB window holds the whole dictionary; memLevel 2 keeps the per-call set-up small.
const OPTIONS = { level: 6, windowBits: 12, memLevel: 2, dictionary: OUTPUT_DICTIONARY_V1 } as const;

/** Store `output` (any JSON value): format 1, or format 0 when compressing does not make it smaller. */
export function encodeOutput(output: unknown): Buffer {
  const text = Buffer.from(JSON.stringify(output), 'utf8');
  const packed = deflateRawSync(text, OPTIONS);
  return packed.length + 1 < text.length ? Buffer.concat([Buffer.of(1), packed]) : Buffer.concat([Buffer.of(0), text]);
}

/**
 * The output stored as `bytes` by {@link encodeOutput}.
 * @throws Error for an unknown format byte or bytes that do not decode (a damaged row)
 */
export function decodeOutput(bytes: Uint8Array): unknown {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset + 1, bytes.byteLength - 1);
  switch (bytes[0]) {
    case 0: return JSON.parse(body.toString('utf8'));
    case 1: return JSON.parse(inflateRawSync(body, { windowBits: OPTIONS.windowBits, dictionary: OUTPUT_DICTIONARY_V1 }).toString('utf8'));
    default: throw new Error(`unknown stored output format ${bytes[0]}`);
  }
}
