import { z } from 'zod';
import { alertSilenceCreateSchema, monitorNameSchema, newId, type AlertSilence } from '@vantage/shared-protocol';
import { isoInstant, reportZod, type KindHandler } from './kind.js';

/*
 * `alert_silences.<reason>` (docs/api/alerting.md "Silences"). The API has no name for a silence:
 * its `reason` is the stable name, so a silence without a reason is not managed by files.
 */

const instant = z.iso.datetime({ offset: true });

/** A silence: `monitor` (a monitor's name; omitted or null: all your monitors), `starts_at`, `ends_at` (ISO 8601, ends after it starts). */
export const silenceSpecSchema = z.strictObject({
  monitor: monitorNameSchema.nullable().default(null),
  starts_at: instant,
  ends_at: instant,
});
type SilenceSpec = z.output<typeof silenceSpecSchema>;

const PATH = '/v1/alert-silences';

/** Silences keyed by reason; the monitor of a silence cannot change (the API's PATCH does not move it). */
export const alertSilenceKind: KindHandler = {
  kind: 'alert_silence', section: 'alert_silences', path: PATH, spec: silenceSpecSchema,
  resolve(name, spec, ctx) {
    const s = spec as SilenceSpec;
    const issue = ctx.issue;
    if (s.monitor !== null && !ctx.known('monitor', s.monitor)) issue('monitor', `no monitor named "${s.monitor}" in these files or your account`);
    const check = alertSilenceCreateSchema.safeParse({ monitor_id: s.monitor === null ? null : newId('monitor'), reason: name, starts_at: s.starts_at, ends_at: s.ends_at });
    if (!check.success) reportZod(check.error, issue, (p) => (p === 'reason' ? '' : p));
    if (ctx.existing && ctx.existing.view.monitor !== s.monitor) {
      issue('monitor', `the existing silence is of ${ctx.existing.view.monitor === null ? 'all monitors' : `monitor "${String(ctx.existing.view.monitor)}"`}; its monitor cannot change (give it another reason)`);
    }
    const view = { monitor: s.monitor, starts_at: isoInstant(s.starts_at), ends_at: isoInstant(s.ends_at) };
    return { view, compare: Object.keys(view) };
  },
  async list(api) {
    const { items } = await api.get<{ items: AlertSilence[] }>(PATH);
    return items.map((s) => ({
      id: s.id, name: s.reason || null, team_id: s.team_id, created_at: s.created_at,
      view: (nameOf) => ({ monitor: s.monitor_id ? nameOf(s.monitor_id) : null, starts_at: isoInstant(s.starts_at), ends_at: isoInstant(s.ends_at) }),
    }));
  },
  exportSpec(e) {
    const { monitor, ...rest } = e.view;
    return monitor === null ? rest : { monitor, ...rest };
  },
  async create(c, w) {
    const v = c.desired!.view as { monitor: string | null; starts_at: string; ends_at: string };
    const body = { monitor_id: v.monitor === null ? null : w.need('monitor', v.monitor), reason: c.name, starts_at: v.starts_at, ends_at: v.ends_at };
    return (await w.api.post<{ id: string }>(PATH, body)).id;
  },
  async update(c, w) {
    const v = c.desired!.view;
    await w.api.patch(`${PATH}/${c.existing!.id}`, { starts_at: v.starts_at, ends_at: v.ends_at });
  },
};
