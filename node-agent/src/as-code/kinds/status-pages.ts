import { z } from 'zod';
import {
  hostNameFault, monitorNameSchema, newId, STATUS_PAGE_SLUG, STATUS_PAGE_THEMES, statusPageCreateSchema, type StatusPage,
} from '@vantage/shared-protocol';
import { ApiCallError, type ApiClient } from '../client.js';
import { envRefSchema, secretEnvName } from '../env-ref.js';
import type { AsCodeIssue } from '../load.js';
import type { Plan } from '../plan.js';
import { reportZod, type KindHandler } from './kind.js';

/*
 * `status_pages.<slug>` (docs/api/status-pages.md): the page's slug is its stable name (slugs are
 * unique across the deployment). Components name a monitor or a monitor group; the password of a
 * page that is not public is a secret, given only as `{ env: NAME }`.
 */

/** A component: exactly one of `monitor` or `group` (names), `display_name` (default: that name), `section`. */
const componentSpecSchema = z.strictObject({
  monitor: monitorNameSchema.optional(),
  group: monitorNameSchema.optional(),
  display_name: z.string().trim().min(1).max(200).optional(),
  section: z.string().trim().max(100).default(''),
}).refine((c) => (c.monitor === undefined) !== (c.group === undefined), { message: 'give exactly one of monitor and group' });

/**
 * A status page: the create request's fields (`title`, `description`, `custom_domain`, `theme`,
 * `logo_url`, `is_public`, `history_days`) with `components[]` naming monitors and groups, and
 * `password` (required when `is_public` is false) as an environment variable reference.
 */
export const statusPageSpecSchema = z.strictObject({
  title: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000).default(''),
  custom_domain: z.string().max(300).nullable().default(null),
  components: z.array(componentSpecSchema).max(100).default([]),
  theme: z.enum(STATUS_PAGE_THEMES).default('system'),
  logo_url: z.string().max(2048).nullable().default(null),
  is_public: z.boolean().default(true),
  password: z.union([envRefSchema, z.string()]).nullable().default(null),
  history_days: z.number().int().min(1).max(365).default(90),
});
type PageSpec = z.output<typeof statusPageSpecSchema>;
type ComponentView = { monitor?: string; group?: string; display_name: string; section: string };

const PATH = '/v1/status-pages';

/** The request fields of a page's view (components by id); the password only when `password` is given. */
function requestOf(v: Record<string, unknown>, need: (kind: 'monitor' | 'monitor_group', name: string) => string, password: unknown): Record<string, unknown> {
  const components = (v.components as ComponentView[]).map((c) => ({
    ...(c.monitor !== undefined ? { monitor_id: need('monitor', c.monitor) } : { group_id: need('monitor_group', c.group!) }),
    display_name: c.display_name, section: c.section,
  }));
  return { ...v, components, ...(password !== undefined ? { password } : {}) };
}

/** Status pages keyed by slug. */
export const statusPageKind: KindHandler = {
  kind: 'status_page', section: 'status_pages', path: PATH, spec: statusPageSpecSchema,
  resolve(name, spec, ctx) {
    const s = spec as PageSpec;
    const issue = ctx.issue;
    if (!STATUS_PAGE_SLUG.test(name)) issue('', 'a status page\'s name is its slug: 1-63 lower-case letters, digits or inner hyphens');
    s.components.forEach((c, i) => {
      if (c.monitor !== undefined && !ctx.known('monitor', c.monitor)) issue(`components[${i}].monitor`, `no monitor named "${c.monitor}" in these files or your account`);
      if (c.group !== undefined && !ctx.known('monitor_group', c.group)) issue(`components[${i}].group`, `no monitor group named "${c.group}" in these files or your account`);
    });
    const domain = s.custom_domain === null ? null : s.custom_domain.trim().toLowerCase().replace(/\.$/, '');
    const fault = domain === null ? null : hostNameFault(domain);
    if (fault) issue('custom_domain', fault);
    let password: string | null = null;
    if (typeof s.password === 'string') issue('password', 'a secret must be given as { env: NAME }, never inline');
    else if (s.password !== null) {
      const value = ctx.env[s.password.env];
      if (value === undefined || value === '') issue('password', `environment variable ${s.password.env} is not set`);
      else password = value;
    }
    if (s.is_public && s.password !== null) issue('password', 'only a page that is not public has a password');
    // The API's own rules on the request this page becomes (ids stand in for names).
    const check = statusPageCreateSchema.safeParse({
      ...s, slug: STATUS_PAGE_SLUG.test(name) ? name : 'x', custom_domain: domain, password: s.is_public ? null : (password ?? (s.password === null ? null : 'placeholder')),
      components: s.components.map(({ monitor, group, ...rest }) => ({ ...rest, ...(monitor !== undefined ? { monitor_id: newId('monitor') } : { group_id: newId('monitor_group') }) })),
    });
    if (!check.success) reportZod(check.error, issue, (p) => p.replace(/\.monitor_id$/, '.monitor').replace(/\.group_id$/, '.group'));
    const components: ComponentView[] = s.components.map((c) => ({
      ...(c.monitor !== undefined ? { monitor: c.monitor } : { group: c.group! }), display_name: c.display_name ?? (c.monitor ?? c.group)!, section: c.section,
    }));
    const view = {
      title: s.title, description: s.description, custom_domain: domain, components, theme: s.theme, logo_url: s.logo_url,
      is_public: s.is_public, history_days: s.history_days,
    };
    return { view, compare: Object.keys(view), ...(password !== null ? { secrets: { password } } : {}) };
  },
  async list(api) {
    const { items } = await api.get<{ items: StatusPage[] }>(PATH);
    return items.map((p) => ({
      id: p.id, name: p.slug, team_id: p.team_id, created_at: p.created_at,
      view: (nameOf) => ({
        title: p.title, description: p.description, custom_domain: p.custom_domain,
        components: p.components.map((c) => ({ ...(c.monitor_id ? { monitor: nameOf(c.monitor_id) } : { group: nameOf(c.group_id!) }), display_name: c.display_name, section: c.section })),
        theme: p.theme, logo_url: p.logo_url, is_public: p.is_public, history_days: p.history_days,
      }),
    }));
  },
  exportSpec(e) {
    const components = (e.view.components as ComponentView[]).map((c) => {
      const { display_name, ...rest } = c;
      return display_name === (c.monitor ?? c.group) ? rest : c;
    });
    return { ...e.view, components, ...(e.view.is_public ? {} : { password: { env: secretEnvName(e.name, 'password') } }) };
  },
  async create(c, w) {
    const body = { slug: c.name, ...requestOf(c.desired!.view, w.need, c.desired!.secrets?.password) };
    return (await w.api.post<{ id: string }>(PATH, body)).id;
  },
  async update(c, w) {
    // The password is write-only: sent when the page stops being public (a changed password is not seen).
    const becomesPrivate = c.existing!.view.is_public === true && c.desired!.view.is_public === false;
    await w.api.patch(`${PATH}/${c.existing!.id}`, requestOf(c.desired!.view, w.need, becomesPrivate ? c.desired!.secrets?.password : undefined));
  },
};

/**
 * Check that each status page to be created has a free slug (slugs are unique across the
 * deployment: another account's or a team's page may hold it), through the public read of the
 * slug (404 STATUS_PAGE_NOT_FOUND: free), so a taken slug stops the apply before any change.
 * @returns one issue per taken slug
 * @throws ApiCallError when the public read fails otherwise
 */
export async function preflightStatusPages(api: ApiClient, plan: Plan): Promise<AsCodeIssue[]> {
  const creates = plan.changes.filter((c) => c.kind === 'status_page' && c.action === 'create');
  const taken = await Promise.all(creates.map(async (c) => {
    try {
      await api.get(`/v1/public/status-pages/${encodeURIComponent(c.name)}`);
    } catch (err) {
      if (err instanceof ApiCallError && err.code === 'STATUS_PAGE_NOT_FOUND') return false;
      if (!(err instanceof ApiCallError && err.code === 'AUTH_REQUIRED')) throw err;
    }
    return true;
  }));
  return creates.filter((_c, i) => taken[i]).map((c) => ({
    source_file: c.source_file, kind: 'status_page' as const, name: c.name, path: `status_pages.${c.name}`,
    message: `the slug "${c.name}" is taken by another status page of this deployment (another account's or a team's)`,
  }));
}
