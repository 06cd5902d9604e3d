/**
 * Limits of docs/api/conventions.md as named constants (units in the names). Every route and schema reads
 * them from here so a limit is written once.
 */
export const LIMITS = {
  /** Request body size; 413 beyond (docs/api/conventions.md). */
  request_body_max_bytes: 32 * 1024,
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
  /** Node protocol: results in one result.batch message (ours). */
  result_batch_max: 500,
} as const;
