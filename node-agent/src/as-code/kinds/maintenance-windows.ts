import { z } from 'zod';
import { MAINTENANCE_RECURRENCES, MAINTENANCE_SCOPES, maintenanceWindowCreateSchema, type MaintenanceWindow } from '@vantage/shared-protocol';
import { isoInstant, reportZod, type KindHandler } from './kind.js';

/*
 * `maintenance_windows.<title>` (docs/api/alerting.md "Maintenance windows"): the window's title
 * is its stable name (a window without one is not managed by files). `scope` names monitors or
 * monitor groups (by name) or gives tags, as `scope_type` says.
 */

const instant = z.iso.datetime({ offset: true });

/**
 * A window: `scope_type` (monitor, group, tag, all), `scope[]` (monitor names, group names or
 * tags; empty for all), `starts_at`, `ends_at`, `recurrence` (none, daily, weekly, monthly),
 * `recurrence_until`, `advance_notice_minutes` (0-10080): the API's fields with names for ids.
 */
export const maintenanceWindowSpecSchema = z.strictObject({
  scope_type: z.enum(MAINTENANCE_SCOPES),
  scope: z.array(z.string().trim().min(1).max(200)).max(100).default([]),
  starts_at: instant,
  ends_at: instant,
  recurrence: z.enum(MAINTENANCE_RECURRENCES).default('none'),
  recurrence_until: instant.nullable().default(null),
  advance_notice_minutes: z.number().int().min(0).max(10_080).default(0),
});
type WindowSpec = z.output<typeof maintenanceWindowSpecSchema>;

const PATH = '/v1/maintenance-windows';
const REF_KIND = { monitor: 'monitor', group: 'monitor_group' } as const;

/** The request fields of a window's view, scope names turned into ids. */
function requestOf(v: Record<string, unknown>, need: (kind: 'monitor' | 'monitor_group', name: string) => string): Record<string, unknown> {
  const { scope, scope_type, ...rest } = v as { scope: string[]; scope_type: WindowSpec['scope_type'] };
  const refKind = scope_type === 'monitor' || scope_type === 'group' ? REF_KIND[scope_type] : null;
  return { ...rest, scope_type, scope_ids: refKind ? scope.map((n) => need(refKind, n)) : scope };
}

/** Maintenance windows keyed by title. */
export const maintenanceWindowKind: KindHandler = {
  kind: 'maintenance_window', section: 'maintenance_windows', path: PATH, spec: maintenanceWindowSpecSchema,
  resolve(name, spec, ctx) {
    const s = spec as WindowSpec;
    const issue = ctx.issue;
    const refKind = s.scope_type === 'monitor' || s.scope_type === 'group' ? REF_KIND[s.scope_type] : null;
    if (refKind) for (const n of s.scope) if (!ctx.known(refKind, n)) issue('scope', `no ${refKind === 'monitor' ? 'monitor' : 'monitor group'} named "${n}" in these files or your account`);
    if (s.scope_type === 'all' && s.scope.length) issue('scope', 'must be empty when scope_type is all');
    const { scope, ...fields } = s;
    const check = maintenanceWindowCreateSchema.safeParse({ ...fields, title: name, scope_ids: scope });
    if (!check.success) reportZod(check.error, issue, (p) => p.replace(/^scope_ids/, 'scope'));
    const view = {
      scope_type: s.scope_type, scope: s.scope_type === 'tag' ? s.scope.map((t) => t.toLowerCase()) : s.scope,
      starts_at: isoInstant(s.starts_at), ends_at: isoInstant(s.ends_at), recurrence: s.recurrence,
      recurrence_until: s.recurrence_until === null ? null : isoInstant(s.recurrence_until), advance_notice_minutes: s.advance_notice_minutes,
    };
    return { view, compare: Object.keys(view) };
  },
  async list(api) {
    const { items } = await api.get<{ items: MaintenanceWindow[] }>(PATH);
    return items.map((m) => ({
      id: m.id, name: m.title || null, team_id: m.team_id, created_at: m.created_at,
      view: (nameOf) => ({
        scope_type: m.scope_type, scope: m.scope_type === 'monitor' || m.scope_type === 'group' ? m.scope_ids.map(nameOf) : m.scope_ids,
        starts_at: isoInstant(m.starts_at), ends_at: isoInstant(m.ends_at), recurrence: m.recurrence,
        recurrence_until: m.recurrence_until === null ? null : isoInstant(m.recurrence_until), advance_notice_minutes: m.advance_notice_minutes,
      }),
    }));
  },
  exportSpec(e) {
    const { scope, ...rest } = e.view;
    return e.view.scope_type === 'all' ? rest : { ...rest, scope };
  },
  async create(c, w) {
    return (await w.api.post<{ id: string }>(PATH, { title: c.name, ...requestOf(c.desired!.view, w.need) })).id;
  },
  async update(c, w) {
    await w.api.patch(`${PATH}/${c.existing!.id}`, requestOf(c.desired!.view, w.need));
  },
};
