import { createRoute } from '@hono/zod-openapi';
import { monitorExportSchema, monitorImportResultSchema, monitorImportSchema, monitorTransferQuerySchema } from '@vantage/shared-protocol';
import type { Context } from 'hono';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { AUTH_ERRORS, BEARER, jsonError } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import { maskedConfig } from './header-secrets.js';
import type { HostResolver } from '../probes/address-policy.js';
import { EXAMPLES, bodyWithExample, okWithExample } from './examples.js';
import { importMonitors } from './import.js';
import { actorOf, authorize, ownerForNew, type Owner } from '../teams/authorize.js';
import { groupsOf } from './monitor-groups.db.js';
import { allMonitors } from './monitors.db.js';
import { planLimits } from './plans.js';
import { monitorChecker } from './spec.js';
import { toExportMonitor } from './view.js';

const TAGS = ['monitors'];

const exportRoute = createRoute({
  method: 'get', path: '/export', tags: TAGS, security: BEARER, middleware: [requireAuth({ scope: 'read' })],
  summary: 'Every monitor of yours (or of team_id) as ExportMonitor with the groups; POST it to /v1/monitors/import',
  request: { query: monitorTransferQuerySchema },
  responses: {
    200: okWithExample(monitorExportSchema, '{version, exported_at, groups[], monitors[]}', EXAMPLES.exported),
    404: jsonError('TEAM_NOT_FOUND: team_id names no team you are in'), ...AUTH_ERRORS,
  },
});
const importRoute = createRoute({
  method: 'post', path: '/import', tags: TAGS, security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: 'Import ExportMonitor items (an export document); each is checked like a create and fails alone; dry_run changes nothing',
  description: '`monitors[]` holds ExportMonitor objects (`name`, `type`, `target`, `interval_s`, `node_count`, `tags`, `group`, `config`); '
    + 'groups are matched by name and created when missing. The report has one item per monitor: `created`, `valid` (dry run) or `failed` with its error.',
  request: { query: monitorTransferQuerySchema, body: bodyWithExample(monitorImportSchema, { dry_run: true, groups: EXAMPLES.exported.groups, monitors: EXAMPLES.exported.monitors }) },
  responses: {
    200: okWithExample(monitorImportResultSchema, 'the import report', EXAMPLES.importReport),
    400: jsonError('VALIDATION_FAILED: the document itself (not an item) is malformed'),
    404: jsonError('TEAM_NOT_FOUND: team_id names no team you are in'), ...AUTH_ERRORS,
    403: jsonError('FORBIDDEN: the credential lacks the scope, or your role in team_id cannot create monitors (viewer)'),
  },
});

/**
 * `GET /v1/monitors/export` and `POST /v1/monitors/import` (docs/api/monitors.md ExportMonitor;
 * docs/api/monitors.md "Export and import"). Mounted before the `/{id}` routes of
 * monitorsRouter so `export` is not read as a monitor id. `?team_id=` picks the owner exported
 * (read access) or imported into (write access); absent: the caller's personal monitors, or a
 * workspace token's team.
 */
export function monitorTransferRouter(deps: AppDeps, opts: { resolve?: HostResolver } = {}) {
  const r = createRouter();
  const check = monitorChecker({ sql: deps.sql, config: deps.config, resolve: opts.resolve });
  const plan = planLimits(deps.config);
  const box = secretBoxOf(deps.config);

  /** The owner an export reads: `team_id` (the caller must read it), the workspace token's team, or the caller alone. */
  async function exported(c: Context<AppEnv>, team_id: string | undefined): Promise<Owner> {
    const actor = await actorOf(c, deps);
    const team = team_id ?? actor.team_only;
    if (team === null) return { user_id: actor.user_id, team_id: null };
    await authorize(c, deps, { user_id: actor.user_id, team_id: team }, 'read', 'TEAM_NOT_FOUND', 'team');
    return { user_id: actor.user_id, team_id: team };
  }

  r.openapi(exportRoute, async (c) => {
    const owner = await exported(c, c.req.valid('query').team_id);
    const [groups, monitors] = await Promise.all([groupsOf(deps.sql, owner), allMonitors(deps.sql, owner)]);
    const nameOf = new Map(groups.map((g) => [g.id, g.name]));
    return ok(c, {
      version: 1 as const, exported_at: new Date().toISOString(),
      groups: groups.map((g) => ({ name: g.name, sort_order: g.sort_order })),
      // Header secrets leave masked (header-secrets.ts): an export never carries them.
      monitors: monitors.map((m) => toExportMonitor({ ...m, config: maskedConfig(box, m.id, m.type, m.config) }, m.group_id ? nameOf.get(m.group_id) : undefined)),
    }, 200);
  });

  r.openapi(importRoute, async (c) => {
    const owner = await ownerForNew(c, deps, c.req.valid('query').team_id);
    const report = await importMonitors({ sql: deps.sql, quotas: deps, box, check, plan, base_url: publicBaseUrl(deps.config) }, owner, c.req.valid('json'));
    return ok(c, report, 200);
  });

  return r;
}
