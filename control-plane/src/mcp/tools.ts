import { z } from 'zod';
import { isId, monitorListQuerySchema, nodeListQuerySchema, PROBE_TYPES, probeRequestSchema, type ProbeTaskResult, type ProbeType } from '@vantage/shared-protocol';
import type { Principal } from '../env.js';
import { ApiError } from '../errors.js';
import { decideAccess } from '../teams/authorize.js';
import { listNodesJson } from '../nodes/nodes.db.js';
import { findMonitor, listMonitors } from '../monitors/monitors.db.js';
import { toMonitor } from '../monitors/view.js';
import { waitForGroup } from '../probes/wait-group.js';
import type { McpTokenRow } from './mcp-tokens.db.js';
import { scopeOf, type ToolContext, type ToolDef } from './tool-def.js';
import { LOOKUP_TOOLS } from './tools-lookups.js';
import { MONITOR_TOOLS } from './tools-monitors.js';

export type { ToolContext, ToolDef, ToolOutput } from './tool-def.js';

/**
 * The regions a tool may use (docs/api/mcp.md "Scope"): `asked` when the token has no region
 * scope; else `asked` must be among the token's regions (absent = all of them).
 * @throws ApiError FORBIDDEN naming the allowed regions
 */
function regionsFor(token: McpTokenRow, asked: string[] | undefined): string[] | undefined {
  if (token.scope_regions.length === 0) return asked;
  if (!asked || asked.length === 0) return token.scope_regions;
  const outside = asked.filter((r) => !token.scope_regions.includes(r));
  if (outside.length > 0) throw new ApiError('FORBIDDEN', `this MCP token may use only the regions ${token.scope_regions.join(', ')}`, { regions: outside, allowed_regions: token.scope_regions });
  return asked;
}

/** The principal a probe runs for: the token's owner with the probe scope only (no private targets: no write scope). */
function probePrincipal(token: McpTokenRow): Principal {
  return { kind: 'api_key', user_id: token.user_id, scopes: ['probe', 'probe:read', 'read'], credential_id: token.id, team_id: token.team_id };
}


function probeSummary(r: ProbeTaskResult): string {
  const ok = r.node_results.filter((n) => n.success).length;
  return `probe ${r.task_id}: ${r.status}, ${ok}/${r.node_results.length} nodes succeeded`;
}

function probeTool(type: ProbeType): ToolDef {
  return {
    name: `probe_${type}`,
    description: `Run a ${type} probe from one or more Vantage nodes (same request as POST /v1/probe/${type}) and wait for every node's result; with wait: false, answer at once with the task ids and poll get_probe_result.`,
    input: probeRequestSchema(type).extend({ wait: z.boolean().default(true).describe('true (default): answer when every node has ended; false: answer at once with the task ids (start and poll)') }) as unknown as z.ZodObject,
    async run(ctx, { wait, ...args }) {
      if (ctx.token.scope_regions.length > 0 && (args.node_ids || args.node_id)) {
        throw new ApiError('FORBIDDEN', 'this MCP token is limited to regions: choose nodes with nodes.regions, not node ids', { allowed_regions: ctx.token.scope_regions });
      }
      const regions = regionsFor(ctx.token, args.nodes?.regions);
      const body = regions && !args.node_ids && !args.node_id ? { ...args, nodes: { count: 3, countries: [], asns: [], providers: [], tags: [], ...args.nodes, regions } } : args;
      const created = await ctx.create_probe(type, body, probePrincipal(ctx.token));
      if (!wait) return { data: created as unknown as Record<string, unknown>, text: `probe ${created.task_id} started on ${created.task_ids.length} node(s): poll get_probe_result`, units: created.task_ids.length };
      const result = await waitForGroup(ctx.views, created.task_id, ctx.signal);
      return { data: result as unknown as Record<string, unknown>, text: probeSummary(result), units: created.task_ids.length };
    },
  };
}

const nodeQuery = nodeListQuerySchema.omit({ mine: true, team_id: true });
const monitorQuery = monitorListQuerySchema.omit({ team_id: true });

/**
 * Every tool of the MCP entry point (docs/api/mcp.md "Tools"), each calling the functions the
 * matching /v1 route calls, with the token owner's rights.
 */
export const TOOLS: readonly ToolDef[] = [
  ...PROBE_TYPES.map(probeTool),
  {
    name: 'get_probe_result',
    description: 'Read a probe\'s results by any of its task ids (same answer as GET /v1/probe/tasks/{task_id}).',
    input: z.object({ task_id: z.string().max(64) }),
    async run(ctx, args: { task_id: string }) {
      const result = isId('probe_task', args.task_id) ? await ctx.views.load(args.task_id) : null;
      if (!result) throw new ApiError('PROBE_JOB_NOT_FOUND', `no probe task ${args.task_id}`);
      return { data: result as unknown as Record<string, unknown>, text: probeSummary(result), units: 1 };
    },
  },
  {
    name: 'list_nodes',
    description: 'List probe nodes of the public directory (same filters as GET /v1/nodes: country, region, provider, status, asn, tag, page, page_size).',
    input: nodeQuery,
    async run(ctx, q: z.infer<typeof nodeQuery>) {
      const regions = regionsFor(ctx.token, q.region === undefined ? undefined : [q.region]);
      if (regions && regions.length > 1) throw new ApiError('VALIDATION_FAILED', `name one region of this token: ${regions.join(', ')}`, { allowed_regions: regions });
      const { items_json, total } = await listNodesJson(ctx.sql, { ...q, region: regions?.[0] }, q.page, q.page_size);
      const items = JSON.parse(items_json) as unknown[];
      return { data: { items, total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, text: `${items.length} of ${total} nodes`, units: 1 };
    },
  },
  {
    name: 'list_monitors',
    description: 'List your monitors, newest first (same filters as GET /v1/monitors: status, state, type, group_id, tag, q, page, limit).',
    input: monitorQuery,
    async run(ctx, q: z.infer<typeof monitorQuery>) {
      const { rows, total } = await listMonitors(ctx.sql, scopeOf(ctx.actor), q, q.page, q.limit);
      const lines = rows.map((m) => `${m.id} ${m.name} (${m.type}) ${m.state}`).join('\n');
      return { data: { items: rows.map((m) => toMonitor(m)), total, page: q.page, limit: q.limit }, text: `${rows.length} of ${total} monitors${lines ? `\n${lines}` : ''}`, units: 1 };
    },
  },
  {
    name: 'get_monitor',
    description: 'Read one of your monitors with its current state (same answer as GET /v1/monitors/{id}).',
    input: z.object({ id: z.string().max(64) }),
    async run(ctx, args: { id: string }) {
      const row = isId('monitor', args.id) ? await findMonitor(ctx.sql, args.id) : null;
      decideAccess(ctx.actor, row, 'read', 'MONITOR_NOT_FOUND', 'monitor');
      return { data: toMonitor(row) as unknown as Record<string, unknown>, text: `${row.name} (${row.type} ${row.target}): ${row.state}`, units: 1 };
    },
  },
  ...MONITOR_TOOLS,
  ...LOOKUP_TOOLS,
];
