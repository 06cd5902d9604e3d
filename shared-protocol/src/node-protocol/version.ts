/**
 * Node protocol version (tRPC/tldraw style): a node sends `protocol_version` in its first message;
 * the control plane accepts any version in [MIN_PROTOCOL_VERSION, PROTOCOL_VERSION] and closes
 * with {@link CLOSE_CODES.unsupported_version} otherwise.
 *
 * 2: `task.run` and assignments carry the requester's target `policy`. Version 1 nodes applied
 * only their operator's policy to every task, so a node that allowed private targets ran them
 * for anyone; they are refused (the minimum is 2) rather than sent tasks they cannot confine.
 * Also in 2: after an enrollment `welcome` the node confirms its credential on the same
 * connection (`enroll.confirm` with a proof, answered by `enroll.confirmed`); only that spends the
 * enrollment token.
 *
 * 3: `capabilities` may list `browser`, and assignments and monitor results may be of type
 * `browser`. A version 2 control plane would refuse such a hello as invalid; refused by version
 * (4005) instead, the operator learns to upgrade the control plane first. Version 2 nodes are
 * still accepted: they never advertise `browser`, so they get no browser monitors.
 */
export const PROTOCOL_VERSION = 3;
export const MIN_PROTOCOL_VERSION = 2;

/** WebSocket path nodes connect to (relative to the control plane's base URL). */
export const NODE_WS_PATH = '/v1/nodes/connect';

/** Heartbeat period both sides use unless `welcome` says otherwise; a link silent for 3 periods is dead. */
export const HEARTBEAT_INTERVAL_MS = 10_000;
export const HEARTBEAT_MISSES_DEAD = 3;
