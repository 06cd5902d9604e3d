import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { AppDeps } from '../deps.js';
import { createMcpApp, MCP_PATH, type McpAppOptions } from './server.js';

/** A running MCP listener: its URL (`http://host:port/mcp`) and how to stop it. */
export interface McpListener { url: string; port: number; close(): Promise<void> }

/**
 * Serve the MCP entry point (server.ts) on its own listener, `host`:`port` (VANTAGE_MCP_PORT;
 * 0 = a port the system picks), apart from the /v1 API (docs/api/mcp.md).
 */
export async function startMcpListener(deps: AppDeps, host: string, port: number, opts: McpAppOptions = {}): Promise<McpListener> {
  const mcp = createMcpApp(deps, opts);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: mcp.app.fetch, hostname: host, port }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}${MCP_PATH}`,
    port: bound,
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
