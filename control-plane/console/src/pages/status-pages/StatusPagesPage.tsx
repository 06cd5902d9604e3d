import type { StatusPage } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { useMarks } from '../../api/use-marks.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { ManagedBadge } from '../../components/managed/Managed.js';
import { t } from '../../i18n/i18n.js';
import { useTeamScope, withTeam } from '../../api/team-scope.js';

/**
 * Status pages (GET /v1/status-pages): title, address (a link to the public page at
 * /status/{slug}), custom domain, components, who may see it, the file of one applied from a file;
 * each title opens its edit page (docs/api/status-pages.md, docs/api/as-code.md "Marks").
 */
export default function StatusPagesPage() {
  const pages = useApi<{ items: StatusPage[] }>(withTeam('/v1/status-pages', useTeamScope()));
  const markOf = useMarks('status_page');
  return (
    <section>
      <div class="title-row">
        <h1>{t('sp.title')}</h1>
        <Link href="/status-pages/new" class="button primary">{t('sp.new')}</Link>
      </div>
      <p class="hint">{t('sp.intro')}</p>
      <Listed loaded={pages} items={(d) => d.items} empty={t('sp.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('sp.page_title')}</th><th scope="col">{t('sp.public_page')}</th><th scope="col">{t('sp.custom_domain')}</th>
              <th scope="col">{t('sp.components')}</th><th scope="col">{t('sp.visibility')}</th>
            </tr></thead>
            <tbody>{d.items.map((p) => (
              <tr key={p.id}>
                <td><Link href={`/status-pages/${p.id}`}>{p.title}</Link> <ManagedBadge mark={markOf(p.id)} /></td>
                <td><a href={`/status/${p.slug}`} target="_blank" rel="noopener">{`/status/${p.slug}`}<span class="sr-only"> {t('sp.opens_new')}</span></a></td>
                <td>{p.custom_domain ?? '—'}</td>
                <td>{p.components.length}</td>
                <td><span class="badge">{p.is_public ? t('sp.public') : t('sp.password_protected')}</span></td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      <p><Link href="/incidents">{t('sp.to_incidents')}</Link></p>
    </section>
  );
}
