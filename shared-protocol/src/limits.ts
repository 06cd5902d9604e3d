/**
 * Limits of spec/api.md part 8 as named constants (units in the names). Every route and schema reads
 * them from here so a limit is written once.
 */
export const LIMITS = {
  /** Request body size; 413 beyond (spec 7 rule 4, part 8). */
  request_body_max_bytes: 32 * 1024,
  /** Session access-token lifetime (spec 2.5, 5.2). */
  access_token_ttl_s: 900,
  /** Password minimum length (spec 4.3). */
  password_min_chars: 8,
  /** API key validity, days (spec 4.3). */
  api_key_expires_days_min: 1,
  api_key_expires_days_max: 90,
  api_key_expires_days_default: 90,
  /** Pagination (spec 2.2, part 8). */
  page_default: 1,
  page_size_default: 20,
  page_size_max: 200,
  list_limit_default: 20,
  list_limit_max: 100,
  /** HTTP probe (spec 4.1). */
  http_timeout_ms_min: 1000,
  http_timeout_ms_max: 30000,
  http_timeout_ms_default: 10000,
  http_body_max_chars: 32768,
  /** Ping probe (spec 4.1): count default 4, max 50; timeout default 5000 ms. */
  ping_count_default: 4,
  ping_count_max: 50,
  ping_timeout_ms_default: 5000,
  /** TCP probe (spec 4.1). */
  tcp_port_min: 1,
  tcp_port_max: 65535,
  tcp_timeout_ms_default: 5000,
  /** Traceroute (spec 4.1): max_hops default 30; the upper bound 64 is ours (spec silent). */
  traceroute_max_hops_default: 30,
  traceroute_max_hops_max: 64,
  /** Bounds we apply to probe timeouts the spec leaves open (ping, tcp, dns, traceroute). */
  probe_timeout_ms_min: 1000,
  probe_timeout_ms_max: 30000,
  /** Profile text (spec 4.3). */
  display_name_max_chars: 64,
  bio_max_chars: 500,
  /** Monitors (spec 2.6). */
  monitor_name_max_chars: 200,
  monitor_intervals_s: [60, 300, 1800] as const,
  monitor_interval_s_default: 300,
  /** Enrollment token label (spec 2.12). */
  enrollment_label_max_chars: 40,
  /** Alert policies (spec 2.8). */
  alert_recovery_n_max: 10,
  alert_escalation_levels_max: 5,
  /** Node protocol: one WebSocket message (ours; the spec is silent). */
  ws_message_max_bytes: 1024 * 1024,
  /** Node protocol: results in one result.batch message (ours). */
  result_batch_max: 500,
} as const;
