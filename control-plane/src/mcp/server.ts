import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono, type Context } from 'hono';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { newId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { errorHandler } from '../http/errors.js';
import { clientIp } from '../http/client-ip.js';
import { rolesOfUser } from '../teams/memberships.db.js';
import type { Actor } from '../teams/authorize.js';
import { probeCreator } from '../probes/create.js';
import { GroupViews } from '../probes/view.js';
import { historyReads } from '../checks/history-reads.js';
import { createLookups } from '../lookups/lookups.js';
import { monitorWriter } from '../monitors/writer.js';
import { authenticateMcp } from './authenticate.js';
import { endMcpSession, insertMcpSession, setMcpSessionClient } from './mcp-activity.db.js';
import type { McpTokenRow } from './mcp-tokens.db.js';
import { recordedCall, ToolCallLimiter } from './record-call.js';
import { TOOLS, type ToolContext } from './tools.js';

/** Path of the MCP entry point on its listener (docs/api/mcp.md). */
export const MCP_PATH = '/mcp';
/** The HTTP+SSE transport of MCP 2024-11-05 (docs/api/mcp.md "SSE transport"): the stream opened with GET... */
export const SSE_PATH = '/sse';
/** ...and where its client POSTs messages, `?sessionId=` naming the stream. */
export const SSE_MESSAGES_PATH = '/messages';
/** A session without a request this long is closed (its transport and server dropped). */
const IDLE_SESSION_MS = 30 * 60_000;

/**
 * An open session: `id` is its recorded mcps_ id (for Streamable HTTP also the `mcp-session-id`;
 * an SSE stream is named by its transport's own `sessionId` in the messages URL).
 */
interface Session<T extends { close(): Promise<void> } = WebStandardStreamableHTTPServerTransport> { id: string; transport: T; token_id: string; last_ms: number }

/** Options of {@link createMcpApp}: `now` is the clock in ms (token expiry and auto-renew; tests move it). */
export interface McpAppOptions { now?: () => number }

/** `client_id` of a session (docs/api/mcp.md "Sessions"): the official Python or TypeScript SDK, from the client's name and its HTTP client. */
export function clientKind(name: string, user_agent: string | undefined): 'sdk-py' | 'sdk-ts' | 'other' {
  if (/python/i.test(name) || user_agent?.startsWith('python-httpx')) return 'sdk-py';
  if (/typescript|node|(^|[-_ ])ts([-_ ]|$)/i.test(name) || user_agent === 'node') return 'sdk-ts';
  return 'other';
}

/** The token's owner as authorization sees it: its roles, only its team's for a workspace-bound token. */
async function actorOf(deps: Pick<AppDeps, 'sql'>, token: McpTokenRow): Promise<Actor> {
  const all = await rolesOfUser(deps.sql, token.user_id);
  const roles = token.team_id === null ? all : new Map([...all].filter(([team]) => team === token.team_id));
  return { user_id: token.user_id, roles, team_only: token.team_id };
}

function jsonRpcError(c: Context, status: 400 | 404, message: string): Response {
  return c.json({ jsonrpc: '2.0', error: { code: status === 404 ? -32001 : -32000, message }, id: null }, status);
}

/**
 * The MCP entry point (docs/api/mcp.md): a Hono app answering `/mcp` with the MCP Streamable HTTP
 * transport of the official SDK, one MCP server per session. Every request carries
 * `Authorization: Bearer svc_mcp_…` (mcp/authenticate.ts: anything else 401, a client address
 * outside the token's whitelist 403, in the error envelope); a session belongs to the token that
 * opened it. Sessions are recorded at `initialize` and ended on DELETE or after 30 idle minutes;
 * the tools offered are those of the token's `scope.tools` (all when empty), each call recorded
 * (record-call.ts). Sessions live in this instance's memory: a load balancer keeps a session's
 * requests on one instance (the `mcp-session-id` header). The HTTP+SSE transport of MCP 2024-11-05
 * is served beside it (`GET /sse`, `POST /messages?sessionId=`) with the same checks and records.
 * @returns the app and `close()` (ends every session)
 */
export function createMcpApp(deps: AppDeps, opts: McpAppOptions = {}): { app: Hono<AppEnv>; close(): Promise<void> } {
  const now = opts.now ?? Date.now;
  const log = deps.log.child({ module: 'mcp' });
  const sessions = new Map<string, Session>();
  /** SSE sessions by their transport's `sessionId` (the messages URL's). */
  const sseSessions = new Map<string, Session<SSEServerTransport>>();
  const limiter = new ToolCallLimiter(deps.config.mcp_rate_limit_per_min);
  const create_probe = probeCreator({ sql: deps.sql, generic_sql: deps.generic_sql, log: deps.log, config: deps.config, hub: deps.hub });
  const views = new GroupViews(deps.sql);
  const lookups = createLookups(deps);
  const monitors = monitorWriter(deps);
  const alert_engine = { sql: deps.sql, config: deps.config, events: deps.events, log: deps.log };
  const history = historyReads(deps);

  /** An MCP server offering the tools of `token`'s scope, each call recorded under session `session_id()`. */
  async function toolServer(token: McpTokenRow, session_id: () => string): Promise<McpServer> {
    const actor = await actorOf(deps, token);
    const server = new McpServer({ name: 'vantage', version: '1.0.0' }, { instructions: 'Vantage network diagnostics and uptime monitoring: run probes from Vantage nodes, read nodes and monitors.' });
    for (const tool of TOOLS) {
      if (token.scope_tools.length > 0 && !token.scope_tools.includes(tool.name)) continue;
      server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, async (args: Record<string, unknown>) => recordedCall(
        { sql: deps.sql, log, token, session_id: session_id(), limiter, timeout_ms: deps.config.mcp_tool_timeout_ms, now },
        tool.name, args, (signal) => tool.run({ sql: deps.sql, token, actor, create_probe, views, lookups, monitors, history, alert_engine, signal } satisfies ToolContext, args),
      ));
    }
    return server;
  }

  async function openSession(token: McpTokenRow, client: { name: string; version: string }, client_ip: string, user_agent: string | undefined): Promise<Session> {
    const session: Session = { id: '', token_id: token.id, last_ms: now(), transport: undefined as never };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => newId('mcp_session'),
      // One JSON answer per request: tools send no progress notifications, and a stream per call costs more.
      enableJsonResponse: true,
      onsessioninitialized: async (id) => {
        session.id = id;
        sessions.set(id, session);
        await insertMcpSession(deps.sql, {
          id, user_id: token.user_id, token_id: token.id, client_id: clientKind(client.name, user_agent),
          client_ip, client_version: client.version.slice(0, 100),
        });
      },
      onsessionclosed: async (id) => {
        sessions.delete(id);
        await endMcpSession(deps.sql, id);
      },
    });
    session.transport = transport;
    await (await toolServer(token, () => transport.sessionId!)).connect(transport);
    return session;
  }

  const app = new Hono<AppEnv>();
  app.onError(errorHandler(deps.config));
  app.use('*', async (c, next) => {
    c.set('request_id', newId('request'));
    c.set('principal', null);
    c.set('log', log);
    await next();
  });

  app.all(MCP_PATH, async (c) => {
    const client_ip = clientIp(c, deps.config.trust_proxy);
    const token = await authenticateMcp(deps, c.req.header('authorization'), client_ip, now());
    const session_id = c.req.header('mcp-session-id');
    if (session_id !== undefined) {
      const session = sessions.get(session_id);
      if (!session || session.token_id !== token.id) return jsonRpcError(c, 404, 'session not found: initialize a new one');
      session.last_ms = now();
      return session.transport.handleRequest(c.req.raw);
    }
    if (c.req.method !== 'POST') return jsonRpcError(c, 400, 'no mcp-session-id: start with an initialize request');
    const body: unknown = await c.req.json().catch(() => undefined);
    if (!isInitializeRequest(body)) return jsonRpcError(c, 400, 'no mcp-session-id: start with an initialize request');
    const session = await openSession(token, body.params.clientInfo, client_ip, c.req.header('user-agent'));
    return session.transport.handleRequest(c.req.raw, { parsedBody: body });
  });

  /** The Node request and response under a Hono context (the SSE transport writes to them itself). */
  function nodeHttp(c: Context): { incoming: IncomingMessage; outgoing: ServerResponse } | null {
    const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
    return env?.incoming && env.outgoing ? { incoming: env.incoming, outgoing: env.outgoing } : null;
  }

  // The HTTP+SSE transport (MCP 2024-11-05) for clients that do not speak Streamable HTTP: the
  // same tokens, checks, tools and records; the session is recorded when the stream opens and
  // ends when it closes.
  app.get(SSE_PATH, async (c) => {
    const client_ip = clientIp(c, deps.config.trust_proxy);
    const token = await authenticateMcp(deps, c.req.header('authorization'), client_ip, now());
    const node = nodeHttp(c);
    if (!node) return jsonRpcError(c, 400, 'the SSE transport needs the MCP listener');
    const id = newId('mcp_session');
    const transport = new SSEServerTransport(SSE_MESSAGES_PATH, node.outgoing);
    await insertMcpSession(deps.sql, {
      id, user_id: token.user_id, token_id: token.id, client_id: clientKind('', c.req.header('user-agent')), client_ip, client_version: '',
    });
    sseSessions.set(transport.sessionId, { id, transport, token_id: token.id, last_ms: now() });
    transport.onclose = () => {
      if (!sseSessions.delete(transport.sessionId)) return;
      endMcpSession(deps.sql, id).catch((err: unknown) => log.warn({ err, session_id: id }, 'mcp session end failed'));
    };
    await (await toolServer(token, () => id)).connect(transport);
    return RESPONSE_ALREADY_SENT;
  });

  app.post(SSE_MESSAGES_PATH, async (c) => {
    const client_ip = clientIp(c, deps.config.trust_proxy);
    const token = await authenticateMcp(deps, c.req.header('authorization'), client_ip, now());
    const session = sseSessions.get(c.req.query('sessionId') ?? '');
    if (!session || session.token_id !== token.id) return jsonRpcError(c, 404, 'session not found: open a new stream at /sse');
    const node = nodeHttp(c);
    if (!node) return jsonRpcError(c, 400, 'the SSE transport needs the MCP listener');
    const body: unknown = await c.req.json().catch(() => undefined);
    if (body === undefined) return jsonRpcError(c, 400, 'the body must be a JSON-RPC message');
    session.last_ms = now();
    if (isInitializeRequest(body)) {
      const client = body.params.clientInfo;
      await setMcpSessionClient(deps.sql, session.id, { client_id: clientKind(client.name, c.req.header('user-agent')), client_version: client.version.slice(0, 100) });
    }
    await session.transport.handlePostMessage(node.incoming, node.outgoing, body);
    return RESPONSE_ALREADY_SENT;
  });

  /** Drop session `id` and record its end (DELETE goes through the transport's onsessionclosed instead). */
  async function dropSession(key: string, s: Session<{ close(): Promise<void> }>): Promise<void> {
    sessions.delete(key);
    sseSessions.delete(key);
    await s.transport.close().catch(() => undefined);
    await endMcpSession(deps.sql, s.id);
  }

  // Sessions whose client went away without DELETE are closed after a while.
  const sweep = setInterval(() => {
    const cutoff = now() - IDLE_SESSION_MS;
    for (const [key, s] of [...sessions, ...sseSessions]) if (s.last_ms < cutoff) dropSession(key, s).catch((err: unknown) => log.warn({ err, session_id: s.id }, 'mcp session close failed'));
  }, 60_000);
  sweep.unref();

  return {
    app,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions, ...sseSessions].map(([key, s]) => dropSession(key, s).catch((err: unknown) => log.warn({ err, session_id: s.id }, 'mcp session close failed'))));
    },
  };
}
