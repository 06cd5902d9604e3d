/** Monitors (docs/api/monitors.md): types, per-type config, API shapes, import/export. */
export * from './types.js';
export * from './assertions.js';
export * from './config-http.js';
export * from './config-network.js';
export * from './config-heartbeat.js';
export * from './config-browser.js';
export * from './config.js';
export * from './owner.js';
export * from './requests.js';
export * from './groups.js';
export * from './transfer.js';
export * from './rounds.js';
export * from './history.js';
export * from './history-stats.js';
