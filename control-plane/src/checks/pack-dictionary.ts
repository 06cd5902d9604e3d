/*
 * The preset dictionary of packed check blocks of format 2 (checks/pack-codec.ts): DEFLATE starts
 * a block knowing these texts, so the shapes a block names (an output or assertions with every
 * number written 0 and every string "") cost a few bytes instead of a hundred or more each hour.
 * One line per shape, as a block writes them: the shapes of every node check type's outputs
 * (those of checks/output-codec.ts's dictionary), an assertion result, a ping that lost its
 * packet; the most frequent (ping) last, where matches cost least.
 * NEVER edit it: blocks of format 2 are readable only with exactly these bytes (a test pins its
 * sha256). A better dictionary is a new format number.
 */
const SHAPES_V2 = [
  '{"server":"","addresses":[""],"listings":[{"address":"","zone":"","listed":false,"codes":[],"reasons":[],"error":null}],"listed_count":0}',
  '{"resolved_address":"","port":0,"servername":"","handshake_ms":0,"tls_version":"","cipher":"","subject":"","issuer":"","not_before":"","not_after":"","days_until_expiry":0,"san":["",""],"fingerprint_sha256":"","chain_valid":true,"chain_error":null,"hostname_match":true}',
  '{"final_url":"","resolved_address":"","status_code":0,"latency_ms":0,"timing":{"dns_ms":0,"tcp_ms":0,"tls_ms":0,"ttfb_ms":0,"download_ms":0},"response_size":0,"body_truncated":false,"model":"","prompt_tokens":0,"completion_tokens":0,"tokens_used":0,"response_preview":"","missing_fields":[]}',
  '{"resolved_address":"","protocol":"","destination_reached":true,"hops":[{"hop":0,"address":"","rtts_ms":[0,0,0]},{"hop":0,"address":null,"rtts_ms":[null,null,null]}],"path_changed":false}',
  '{"server":"","protocol":"","rcode":"","query_ms":0,"truncated":false,"answers":[{"name":"","type":"","ttl":0,"value":""}],"authorities":[],"matched_values":[],"missing_values":[]}',
  '{"resolved_address":"","port":0,"connect_ms":0,"state":"","expected":"","banner":null,"banner_matched":null}',
  '{"final_url":"","status_code":0,"response_ms":0,"response_size":0,"headers":{"content-type":"","content-length":"","cache-control":"","date":"","server":"","strict-transport-security":"","vary":"","etag":"","last-modified":"","x-content-type-options":"","x-frame-options":"","content-encoding":"","connection":""},"timing":{"dns_ms":0,"tcp_ms":0,"tls_ms":0,"ttfb_ms":0,"download_ms":0},"tls":{"cipher":"","version":""},"certificate":{"subject":"","issuer":"","not_before":"","not_after":"","days_left":0,"san":[""]},"redirects":[],"resolved_address":"","body_truncated":false,"certificate_error":null,"keyword_found":true}',
  '[{"type":"","op":"","expected":0,"actual":0,"ok":true,"detail":""}]',
  '{"resolved_address":"","packets_sent":0,"packets_received":0,"packet_loss":0,"rtt_min_ms":null,"rtt_avg_ms":null,"rtt_max_ms":null,"rtt_stddev_ms":null,"packets":[{"seq":0,"rtt_ms":null,"ttl":null}]}',
  '{"resolved_address":"","packets_sent":0,"packets_received":0,"packet_loss":0,"rtt_min_ms":0,"rtt_avg_ms":0,"rtt_max_ms":0,"rtt_stddev_ms":0,"packets":[{"seq":0,"rtt_ms":0,"ttl":0},{"seq":0,"rtt_ms":0,"ttl":0},{"seq":0,"rtt_ms":0,"ttl":0},{"seq":0,"rtt_ms":0,"ttl":0}]}',
].join('\n');

/** The dictionary of block format 2. */
export const BLOCK_DICTIONARY_V2 = Buffer.from(SHAPES_V2, 'utf8');
