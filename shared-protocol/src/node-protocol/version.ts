/**
 * Node protocol version (tRPC/tldraw style): a node sends `protocol_version` in its first message;
 * the control plane accepts any version in [MIN_PROTOCOL_VERSION, PROTOCOL_VERSION] and closes
 * with {@link CLOSE_CODES.unsupported_version} otherwise.
 */
export const PROTOCOL_VERSION = 1;
export const MIN_PROTOCOL_VERSION = 1;

/** WebSocket path nodes connect to (relative to the control plane's base URL). */
export const NODE_WS_PATH = '/v1/nodes/connect';

/** Heartbeat period both sides use unless `welcome` says otherwise; a link silent for 3 periods is dead. */
export const HEARTBEAT_INTERVAL_MS = 10_000;
export const HEARTBEAT_MISSES_DEAD = 3;
