/** Monitor checks run by nodes (docs/api/checks.md): types, patterns, assertion results, outputs, results. */
export * from './types.js';
export * from './patterns.js';
export * from './assertion-result.js';
export * from './outputs.js';
export * from './result.js';
export * from './template.js';
export * from './browser.js';
export * from './heartbeat.js';
export * from './domain-expiry.js';
export * from './artifacts.js';
