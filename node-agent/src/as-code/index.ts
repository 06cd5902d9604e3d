/** Monitoring as code (docs/api/as-code.md): file format, plan, apply, prune and export through the public API. */
export * from './client.js';
export * from './format.js';
export * from './load.js';
export * from './desired.js';
export * from './state.js';
export * from './plan.js';
export * from './render.js';
export * from './apply.js';
export * from './engine.js';
export * from './export.js';
export * from './json-schema.js';
