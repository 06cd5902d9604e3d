import type { z } from 'zod';
import type { Sql } from '../db/sql.js';
import type { AlertEngineDeps } from '../alerting/engine.js';
import type { historyReads } from '../checks/history-reads.js';
import type { Lookups } from '../lookups/lookups.js';
import type { MonitorWriter } from '../monitors/writer.js';
import type { GroupViews } from '../probes/view.js';
import type { probeCreator } from '../probes/create.js';
import { scopeOfActor, type Actor, type OwnerScope } from '../teams/authorize.js';
import type { McpTokenRow } from './mcp-tokens.db.js';

/**
 * What a tool runs with: the token, its owner as an Actor (teams/authorize.ts), and the parts of
 * the app the /v1 routes use (built once per MCP app, server.ts).
 */
export interface ToolContext {
  sql: Sql;
  token: McpTokenRow;
  actor: Actor;
  create_probe: ReturnType<typeof probeCreator>;
  views: GroupViews;
  lookups: Lookups;
  monitors: MonitorWriter;
  history: ReturnType<typeof historyReads>;
  /** What acknowledging an alert event needs (alerting/engine.ts acknowledgeEvent), as the /v1 route builds it. */
  alert_engine: AlertEngineDeps;
  signal: AbortSignal;
}

/** A tool's answer: structured content, a readable summary, and the units it used (probe tasks, else 1). */
export interface ToolOutput { data: Record<string, unknown>; text: string; units: number }

/** One tool: its input schema (from the shared wire schemas) and what it does. */
export interface ToolDef {
  name: string;
  description: string;
  input: z.ZodObject;
  run(ctx: ToolContext, args: any): Promise<ToolOutput>;
}

/** The owners whose resources the token reads (teams/authorize.ts scopeOfActor): its account and teams, a workspace token its team only. */
export function scopeOf(actor: Actor, team_id?: string | null): OwnerScope {
  return scopeOfActor(actor, 'read', team_id);
}
