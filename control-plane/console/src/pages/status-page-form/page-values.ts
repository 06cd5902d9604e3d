import type { StatusPage } from '@vantage/shared-protocol';
import type { PAGE_THEMES } from '../../api/vocabulary.js';

/** One component row of the form: `source` is `m:<monitor id>` or `g:<group id>` ('' until chosen). */
export interface ComponentRow { key: number; source: string; display_name: string; section: string }

/** The form's values, as typed (strings for the inputs). */
export interface PageValues {
  slug: string; title: string; description: string; custom_domain: string; theme: (typeof PAGE_THEMES)[number];
  logo_url: string; is_public: boolean; password: string; history_days: string; components: ComponentRow[];
}

let nextKey = 1;
/** A fresh row key (rows are reordered and removed, so their index is no key). */
export const rowKey = (): number => nextKey++;

/** The values of a new page: public, system theme, 90 days. */
export function emptyValues(): PageValues {
  return { slug: '', title: '', description: '', custom_domain: '', theme: 'system', logo_url: '', is_public: true, password: '', history_days: '90', components: [] };
}

/** The values of a saved page (the password is never returned: blank means "keep it"). */
export function valuesOf(p: StatusPage): PageValues {
  return {
    slug: p.slug, title: p.title, description: p.description, custom_domain: p.custom_domain ?? '', theme: p.theme,
    logo_url: p.logo_url ?? '', is_public: p.is_public, password: '', history_days: String(p.history_days),
    components: p.components.map((c) => ({ key: rowKey(), source: c.monitor_id ? `m:${c.monitor_id}` : `g:${c.group_id}`, display_name: c.display_name, section: c.section })),
  };
}

/**
 * The body of POST /v1/status-pages or PATCH /v1/status-pages/{id} (docs/api/status-pages.md):
 * blanks become null, components are sent whole (they replace the saved ones) in the form's
 * order, and the password only when typed, so a PATCH keeps a protected page's password.
 */
export function bodyOf(v: PageValues): Record<string, unknown> {
  return {
    slug: v.slug.trim(), title: v.title, description: v.description, custom_domain: v.custom_domain.trim() || null, theme: v.theme,
    logo_url: v.logo_url.trim() || null, is_public: v.is_public, history_days: Number(v.history_days),
    ...(!v.is_public && v.password ? { password: v.password } : {}),
    components: v.components.filter((c) => c.source).map((c) => ({
      [c.source.startsWith('g:') ? 'group_id' : 'monitor_id']: c.source.slice(2),
      ...(c.display_name.trim() ? { display_name: c.display_name.trim() } : {}),
      section: c.section,
    })),
  };
}
