/*
 * The one use of Node's global `Buffer` when shared-protocol's schema modules load: its id module
 * allocates a pool with `Buffer.alloc` at start-up (the console never makes ids). Imported before
 * those modules by the monitor form (pages/monitor-form/monitor-schemas.ts), the agent-obs form
 * (pages/agent-obs-form/agent-obs-schemas.ts) and the as-code page
 * (pages/as-code/AsCodePage.tsx, before it loads the exporter); a Uint8Array stands in.
 */
const g = globalThis as { Buffer?: unknown };
g.Buffer ??= {
  alloc: (size: number) => new Uint8Array(size),
  byteLength: (text: string) => new TextEncoder().encode(text).length,
};
export {};
