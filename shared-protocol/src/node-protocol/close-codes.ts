/**
 * WebSocket close codes 4000-4099 used between control plane and node, with the reason sent in the
 * close frame and whether the node must stop (fatal) or reconnect with backoff (transient).
 * Fatal codes end the agent with a clear message instead of retrying forever (issue: agent runtime).
 */
export const CLOSE_CODES = {
  /** The first message was not a valid hello/enroll, or messages kept failing validation. */
  protocol_error: { code: 4000, reason: 'protocol error', fatal: false },
  /** The node credential is unknown or was revoked. */
  credential_invalid: { code: 4001, reason: 'node credential invalid or revoked', fatal: true },
  /** The enrollment token is unknown, used or expired (docs/api/conventions.md NODE_ENROLLMENT_TOKEN_INVALID). */
  enrollment_token_invalid: { code: 4002, reason: 'enrollment token invalid, used or expired', fatal: true },
  /** The node was disabled or banned by its owner or an operator (docs/api/conventions.md NODE_ALREADY_BANNED). */
  node_disabled: { code: 4003, reason: 'node disabled or banned', fatal: true },
  /** The node record was removed. */
  node_removed: { code: 4004, reason: 'node removed', fatal: true },
  /** The node speaks a protocol version outside [MIN_PROTOCOL_VERSION, PROTOCOL_VERSION]. */
  unsupported_version: { code: 4005, reason: 'unsupported protocol version', fatal: true },
  /** Another connection for the same node replaced this one. */
  replaced: { code: 4006, reason: 'replaced by a newer connection', fatal: false },
  /** No hello/enroll arrived in time after the upgrade, or no `enroll.confirm` after an enrollment `welcome`. */
  hello_timeout: { code: 4007, reason: 'hello timeout', fatal: false },
  /** The control plane is shutting down; reconnect (possibly to another instance). */
  server_shutdown: { code: 4008, reason: 'server shutting down', fatal: false },
  /** Heartbeats stopped arriving. */
  heartbeat_timeout: { code: 4009, reason: 'heartbeat timeout', fatal: false },
} as const;

export type CloseName = keyof typeof CLOSE_CODES;

/** The close-code entry for a numeric code, or null for codes outside our range. */
export function closeCodeInfo(code: number): { name: CloseName; code: number; reason: string; fatal: boolean } | null {
  for (const [name, info] of Object.entries(CLOSE_CODES)) {
    if (info.code === code) return { name: name as CloseName, ...info };
  }
  return null;
}

/** True when a close with `code` must stop the node rather than reconnect (unknown 40xx codes are transient). */
export function isFatalClose(code: number): boolean {
  return closeCodeInfo(code)?.fatal ?? false;
}
