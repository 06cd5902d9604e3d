import { t } from '../i18n/i18n.js';

/** Previous and next buttons of a server-paged list (`page` 1-based of `pages`; `total` items). */
export function Pager({ page, pages, total, onPage }: { page: number; pages: number; total: number; onPage: (page: number) => void }) {
  return (
    <nav class="pager" aria-label={t('monitors.pagination')}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>{t('monitors.prev')}</button>
      <span>{t('pager.page', { page, pages, total })}</span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>{t('monitors.next')}</button>
    </nav>
  );
}

/** The pager of a list answered as `{page, page_size, total}` (1-based `page`). */
export function ListPager({ list, onPage }: { list: { page: number; page_size: number; total: number }; onPage: (page: number) => void }) {
  return <Pager page={list.page} pages={Math.max(1, Math.ceil(list.total / list.page_size))} total={list.total} onPage={onPage} />;
}
