/**
 * @vantage/shared-protocol: the single definition of every wire shape of Vantage (HTTP bodies and
 * node WebSocket messages), with ids, error codes and limits. Types come from `z.infer`.
 */
export * from './ids.js';
export * from './limits.js';
export * from './errors.js';
export * from './envelope.js';
export * from './parse.js';
export * from './probe/params.js';
export * from './probe/request.js';
export * from './probe/outputs.js';
export * from './probe/results.js';
export * from './node-protocol/version.js';
export * from './node-protocol/close-codes.js';
export * from './node-protocol/messages.js';
export * from './nodes.js';
export * from './account.js';
export * from './host-port.js';
