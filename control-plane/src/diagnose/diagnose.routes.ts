import { createRoute, z } from '@hono/zod-openapi';
import {
  DIAGNOSE_REPORT_BYTES_MAX, DIAGNOSE_SCOPES, diagnoseCreatedSchema, diagnoseReportSchema, diagnoseRequestSchema, isId, newId,
  type DiagnoseReport, type DiagnoseScope, type DiagnoseSection,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireProbeAccess } from '../probes/access.js';
import { probeCreator } from '../probes/create.js';
import { loadTaskResult } from '../probes/view.js';
import { getDiagnose, insertDiagnose, type DiagnoseRow, type StoredSection } from './diagnoses.db.js';
import { planScopes, splitDiagnoseTarget } from './plan.js';
import { overallScore, scoreSection } from './score.js';

const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'dg_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });

/** Build the report of a stored run from its probe groups as they stand (docs/api/probes.md "Diagnose"). */
async function report(deps: AppDeps, row: DiagnoseRow): Promise<DiagnoseReport> {
  const sections: Partial<Record<DiagnoseScope, DiagnoseSection>> = {};
  for (const s of row.sections) {
    const group = s.task_id ? await loadTaskResult(deps.sql, s.task_id) : null;
    sections[s.scope] = group ? scoreSection(s.scope, group) : { probe_type: s.probe_type, status: 'skipped', score: null, findings: [s.skipped ?? 'not run'], task_ids: [] };
  }
  const ran = Object.values(sections).filter((s) => s.status !== 'skipped');
  const status = ran.some((s) => s.status === 'running') ? 'running' : ran.some((s) => s.status === 'completed') ? 'completed' : 'failed';
  return { id: row.id, target: row.target, status, overall_score: status === 'running' ? null : overallScore(sections), sections, created_at: row.created_at.toISOString() };
}

/**
 * `/v1/diagnose`: POST runs one probe per scope (http, ping, dns, traceroute, ssl, security_headers;
 * default all) on the chosen nodes through the probe machinery, answering 202 `{id, target, status}`;
 * GET /{id} returns `{id, target, status, overall_score, sections}` scored by the rubric of
 * docs/api/probes.md "Diagnose" (DIAGNOSE_REPORT_TOO_LONG past DIAGNOSE_REPORT_BYTES_MAX).
 * Who may run one: VANTAGE_PUBLIC_PROBES, as for probes.
 */
export function diagnoseRouter(deps: AppDeps) {
  const r = createRouter();
  const create = probeCreator({ sql: deps.sql, generic_sql: deps.generic_sql, log: deps.log, config: deps.config, hub: deps.hub });

  r.openapi(createRoute({
    method: 'post', path: '/', tags: ['probes'], middleware: [requireProbeAccess(deps.config.public_probes)],
    summary: 'Run a diagnose: one probe per scope on the chosen nodes',
    description: `\`target\` is a host or an http(s) URL; \`scope\` any of ${DIAGNOSE_SCOPES.join(', ')} (default all); nodes as for a probe. Poll GET /v1/diagnose/{id}.`,
    request: { body: jsonBody(diagnoseRequestSchema) },
    responses: {
      202: jsonOk(diagnoseCreatedSchema, '{id, target, status: running}'),
      400: jsonError('VALIDATION_FAILED: bad target or scope'), 401: jsonError('AUTH_REQUIRED'), 403: jsonError('FORBIDDEN'),
      404: jsonError('NODE_NOT_FOUND'), 422: jsonError('PROBE_TARGET_INVALID, PROBE_TOO_FEW_NODES'), 503: jsonError('NODE_OFFLINE, UNAVAILABLE'),
    },
  }), async (c) => {
    const body = c.req.valid('json');
    const target = splitDiagnoseTarget(body.target);
    if (!target) throw new ApiError('VALIDATION_FAILED', 'target must be a host name, an IP address or an http(s) URL', { fields: [{ path: 'target', message: 'not a host or URL' }] });
    const principal = c.get('principal');
    const sections: StoredSection[] = [];
    for (const plan of planScopes(target, body.scope)) {
      if (plan.skipped !== undefined) {
        sections.push({ scope: plan.scope, probe_type: plan.probe_type, task_id: null, skipped: plan.skipped });
        continue;
      }
      const created = await create(plan.probe_type, { target: plan.check.target, params: plan.check.params as never, node_ids: body.node_ids, node_id: body.node_id, nodes: body.nodes }, principal);
      sections.push({ scope: plan.scope, probe_type: plan.probe_type, task_id: created.task_id, skipped: null });
    }
    const row = await insertDiagnose(deps.sql, { id: newId('diagnose'), target: body.target, sections, requester_user_id: principal?.user_id ?? null });
    return ok(c, { id: row.id, target: row.target, status: 'running' as const }, 202);
  });

  r.openapi(createRoute({
    method: 'get', path: '/{id}', tags: ['probes'],
    summary: 'A diagnose report: sections with findings and scores, and the overall score',
    description: 'status running until every scope\'s probe ended; overall_score is the weighted mean of the scored sections (rubric in docs/api/probes.md "Diagnose").',
    request: { params: idParam },
    responses: { 200: jsonOk(diagnoseReportSchema, 'the report'), 404: jsonError('NOT_FOUND: no such diagnose'), 422: jsonError('DIAGNOSE_REPORT_TOO_LONG') },
  }), async (c) => {
    const { id } = c.req.valid('param');
    const row = isId('diagnose', id) ? await getDiagnose(deps.sql, id) : null;
    if (!row) throw new ApiError('NOT_FOUND', `no diagnose ${id}`, { resource: 'diagnose', id });
    const data = await report(deps, row);
    const size = Buffer.byteLength(JSON.stringify(data));
    if (size > DIAGNOSE_REPORT_BYTES_MAX) throw new ApiError('DIAGNOSE_REPORT_TOO_LONG', `the report would be ${size} bytes; at most ${DIAGNOSE_REPORT_BYTES_MAX}`, { bytes: size, limit: DIAGNOSE_REPORT_BYTES_MAX });
    return ok(c, data, 200);
  });

  return r;
}
