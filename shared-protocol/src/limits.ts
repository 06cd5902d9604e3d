/**
 * Limits of docs/api/conventions.md as named constants (units in the names). Every route and schema reads
 * them from here so a limit is written once.
 */
export const LIMITS = {
  /** Request body size; 413 beyond (docs/api/conventions.md). */
  request_body_max_bytes: 32 * 1024,
  /**
   * Deepest nesting of a JSON request body, in arrays and objects (ours; the top-level value is
   * level 1). Checked on every route by the body parser before JSON.parse (parse.ts
   * jsonDepthFault): a deeper body gets 400 REQUEST_BODY_INVALID naming the field where it went
   * past the bound (docs/api/conventions.md "Limits"), so no recursive validator meets input deep
   * enough to exhaust the stack. The deepest body the API has a use for is a monitor import item:
   * 4 levels down to a `payload_template` of at most 32 (checks/template.ts TEMPLATE_DEPTH_MAX).
   */
  json_depth_max: 64,
  /** Session access-token lifetime (docs/api/accounts.md, docs/api/conventions.md). */
  access_token_ttl_s: 900,
  /** Password minimum length (docs/api/accounts.md). */
  password_min_chars: 8,
  /** API key validity, days (docs/api/accounts.md). */
  api_key_expires_days_min: 1,
  api_key_expires_days_max: 90,
  api_key_expires_days_default: 90,
  /** Pagination (docs/api/conventions.md). */
  page_default: 1,
  page_size_default: 20,
  page_size_max: 200,
  list_limit_default: 20,
  list_limit_max: 100,
  /** HTTP probe (docs/api/probes.md). */
  http_timeout_ms_min: 1000,
  http_timeout_ms_max: 30000,
  http_timeout_ms_default: 10000,
  http_body_max_chars: 32768,
  /**
   * Request headers a user gives (probe params, HTTP-like monitor configs, SMS channels; ours,
   * docs/api/conventions.md "Request headers", http-headers.ts): how many, and the longest name
   * and value in characters. A value may be as long as a large cookie or token (8 KB, one of
   * nginx's default header buffers); servers bound the whole request head (Node 16 KB by default),
   * which the target enforces.
   */
  http_headers_max: 32,
  http_header_name_max_chars: 256,
  http_header_value_max_chars: 8192,
  /** Ping probe (docs/api/probes.md): count default 4, max 50; timeout default 5000 ms. */
  ping_count_default: 4,
  ping_count_max: 50,
  ping_timeout_ms_default: 5000,
  /** TCP probe (docs/api/probes.md). */
  tcp_port_min: 1,
  tcp_port_max: 65535,
  tcp_timeout_ms_default: 5000,
  /** Traceroute (docs/api/probes.md): max_hops default 30; the upper bound 64 is ours. */
  traceroute_max_hops_default: 30,
  traceroute_max_hops_max: 64,
  /** mtr (docs/api/probes.md): rounds default 10 (`mtr --report`), max 100. */
  mtr_count_default: 10,
  mtr_count_max: 100,
  /** NTP probe (docs/api/probes.md): samples default 4 (ntpdate's), max 16. */
  ntp_count_default: 4,
  ntp_count_max: 16,
  /** Bounds of the probe timeouts (ping, tcp, dns, traceroute). */
  probe_timeout_ms_min: 1000,
  probe_timeout_ms_max: 30000,
  /** Profile text (docs/api/accounts.md). */
  display_name_max_chars: 64,
  bio_max_chars: 500,
  /** Monitors. */
  monitor_name_max_chars: 200,
  monitor_intervals_s: [60, 300, 1800] as const,
  monitor_interval_s_default: 300,
  /** Enrollment token label (docs/api/nodes.md). */
  enrollment_label_max_chars: 40,
  /** Alert policies. */
  alert_recovery_n_max: 10,
  alert_escalation_levels_max: 5,
  /** Node protocol: one WebSocket message (ours). */
  ws_message_max_bytes: 1024 * 1024,
  /**
   * Node protocol: deepest nesting of one WebSocket message, in arrays and objects (ours), checked
   * in both directions before the message is parsed (parse.ts parseNodeMessage, parseServerMessage):
   * a deeper message is refused alone with an `error` naming where. Above the deepest valid message,
   * a result batch whose assertion `actual` is 500 characters of nested JSON (250 levels under 5;
   * checks/assertion-result.ts ASSERTION_ACTUAL_MAX_CHARS), and well below the roughly 1,500 levels
   * at which zod's recursive validation exhausts Node's default stack.
   */
  ws_message_depth_max: 512,
  /** Node protocol: results in one result.batch message (ours). */
  result_batch_max: 500,
} as const;
