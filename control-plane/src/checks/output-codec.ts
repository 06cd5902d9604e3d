import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { Decompressor } from 'zstd-napi';
import binding from 'zstd-napi/binding.js';

/*
 * Check outputs as stored (checks.output_z, migration 0030): the output's JSON text compressed with
 * a dictionary of typical outputs. A ping output of ~320 characters becomes ~60 bytes, an http
 * one ~100: the output is most of a check's row, and Postgres compresses nothing under 2 kB
 * itself. The first byte names the format, so the dictionary can change later without making
 * stored rows unreadable:
 *   0 = the JSON text as is (UTF-8), 1 = raw DEFLATE with DICTIONARY_V1 (written until 2026-11-29),
 *   2 = a Zstandard frame (RFC 8878) without its 4-byte magic number, compressed with the trained
 *       dictionary output-dictionary-v2.zdict (control-plane/scripts/train-output-dictionary.ts).
 * Format 2 is what is written: node:zlib sets up a new engine and hashes the dictionary on every
 * call (~10 µs a ping output), a zstd context keeps both (~2 µs), and the trained dictionary's
 * entropy tables keep the outputs as small (docs/benchmarks.md "Check ingest").
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

/** Format 1's window: 4 kB holds the whole dictionary. */
const V1_WINDOW_BITS = 12;

/**
 * The dictionary of format 2 (exported for the test that pins it). NEVER replace the file: stored
 * outputs of format 2 are only readable with exactly these bytes. A better one is a new format.
 */
export const OUTPUT_DICTIONARY_V2 = readFileSync(new URL('./output-dictionary-v2.zdict', import.meta.url));

/** The 4 bytes every Zstandard frame starts with (RFC 8878 3.1.1), left out of stored outputs. */
const ZSTD_MAGIC = Buffer.of(0x28, 0xb5, 0x2f, 0xfd);

// One context each, kept for the process (set up once: the dictionary is loaded here, not per call).
// Level 4 with the greedy strategy and 6-byte matches: as small as format 1 on the benchmarks' pings
// for 1.8 µs a ping output; levels 1-4 as they are gave 1-4 bytes more, the lazy strategies
// (level 5 and up) 1-5 bytes less for 4-5 µs (docs/benchmarks.md "Check ingest").
// No content size, checksum or dictionary id in the frame: 6 bytes less per ping output (the
// format byte names the dictionary; a damaged frame still fails to decode).
const cctx = new binding.CCtx();
for (const [parameter, value] of [
  [binding.CParameter.compressionLevel, 4], [binding.CParameter.strategy, binding.Strategy.greedy], [binding.CParameter.minMatch, 6],
  [binding.CParameter.contentSizeFlag, 0], [binding.CParameter.checksumFlag, 0], [binding.CParameter.dictIDFlag, 0],
] as const) cctx.setParameter(parameter, value);
cctx.loadDictionary(OUTPUT_DICTIONARY_V2);
const dctx = new binding.DCtx();
dctx.loadDictionary(OUTPUT_DICTIONARY_V2);
const decompressor = new Decompressor();
decompressor.loadDictionary(OUTPUT_DICTIONARY_V2);
// Format 2 frames carry no content size, so Decompressor alone streams them into 128 kB chunks
// (~30 µs a ping output): an output that fits decodes into this buffer at once (~2 µs).
const SCRATCH_BYTES = 256 * 1024;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

/** The JSON text of a format 2 output (`frame`: with its magic number restored). */
function textOfV2(frame: Buffer): string {
  try {
    return scratch.toString('utf8', 0, dctx.decompress(scratch, frame));
  } catch {
    // Larger than the buffer (or damaged: then this throws too).
    return decompressor.decompress(frame).toString('utf8');
  }
}

// The encoder's buffers, reused: the output's JSON text, and the stored bytes (the frame, or a
// format byte and the text). An output whose text may not fit gets buffers of its own.
const TEXT_SCRATCH_BYTES = 64 * 1024;
const textScratch = Buffer.allocUnsafe(TEXT_SCRATCH_BYTES);
const storedScratch = Buffer.allocUnsafe(binding.compressBound(TEXT_SCRATCH_BYTES) + 1);

/**
 * The stored bytes of `output` (any JSON value): format 2, or format 0 when compressing does not
 * make it smaller; `call` is handed them (a view of a buffer reused by the next call) and its
 * answer returned.
 */
function withStored<T>(output: unknown, call: (stored: Buffer) => T): T {
  const json = JSON.stringify(output);
  // At most 3 UTF-8 bytes a UTF-16 unit: a text this short surely fits (write() would cut it).
  const small = json.length * 3 <= TEXT_SCRATCH_BYTES;
  const text = small ? textScratch.subarray(0, textScratch.write(json, 0, 'utf8')) : Buffer.from(json, 'utf8');
  const stored = small ? storedScratch : Buffer.allocUnsafe(binding.compressBound(text.length) + 1);
  const length = cctx.compress2(stored, text);
  if (length - ZSTD_MAGIC.length >= text.length) {
    stored[0] = 0;
    text.copy(stored, 1);
    return call(stored.subarray(0, text.length + 1));
  }
  // The magic's last byte becomes the format byte.
  stored[ZSTD_MAGIC.length - 1] = 2;
  return call(stored.subarray(ZSTD_MAGIC.length - 1, length));
}

/** Store `output` (any JSON value): its stored bytes (format byte first), a buffer of their own. */
export function encodeOutput(output: unknown): Buffer {
  return withStored(output, (stored) => Buffer.from(stored));
}

/**
 * The output stored as `bytes` by {@link encodeOutput}.
 * @throws Error for an unknown format byte or bytes that do not decode (a damaged row)
 */
export function decodeOutput(bytes: Uint8Array): unknown {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset + 1, bytes.byteLength - 1);
  switch (bytes[0]) {
    case 0: return JSON.parse(body.toString('utf8'));
    case 1: return JSON.parse(inflateRawSync(body, { windowBits: V1_WINDOW_BITS, dictionary: OUTPUT_DICTIONARY_V1 }).toString('utf8'));
    case 2: return JSON.parse(textOfV2(Buffer.concat([ZSTD_MAGIC, body])));
    default: throw new Error(`unknown stored output format ${bytes[0]}`);
  }
}
