import { useState } from 'preact/hooks';
import type { AgentObsCheck } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Listed } from '../../components/Listed.js';
import { formatTime, t } from '../../i18n/i18n.js';

/**
 * A monitor's check records, newest first, 20 a page in keyset mode (`cursor` = the last page's
 * `next_cursor`; docs/api/agent-obs.md "Events and check records"): time, up or down, latency,
 * tokens, the error code and the start of the answer.
 */
export function ChecksTable({ path }: { path: string }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const checks = useApi<{ items: AgentObsCheck[]; total: number; next_cursor?: string }>(`${path}?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  return (
    <Listed loaded={checks} items={(d) => d.items} empty={t('ao.checks_empty')}>
      {(d) => (
        <>
          <table>
            <thead><tr>
              <th scope="col">{t('ao.checked_at')}</th><th scope="col">{t('ao.status')}</th><th scope="col">{t('ao.latency_ms')}</th>
              <th scope="col">{t('ao.tokens')}</th><th scope="col">{t('ao.error_code')}</th><th scope="col">{t('ao.response')}</th>
            </tr></thead>
            <tbody>{d.items.map((c) => (
              <tr key={c.id}>
                <td>{formatTime(c.checked_at)}</td>
                <td><span class={`badge state-${c.status}`}>{t(`ao.check.${c.status}`)}</span></td>
                <td>{c.latency_ms ?? ''}</td><td>{c.tokens_used ?? ''}</td><td>{c.error_code ?? ''}</td>
                <td class="clip"><code>{c.response_preview ?? ''}</code></td>
              </tr>
            ))}</tbody>
          </table>
          <nav class="pager" aria-label={t('ao.checks_pages')}>
            <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>{t('ao.newer')}</button>
            <span>{t('ao.checks_total', { total: d.total })}</span>
            <button type="button" disabled={!d.next_cursor} onClick={() => d.next_cursor && setCursors([...cursors, d.next_cursor])}>{t('ao.older')}</button>
          </nav>
        </>
      )}
    </Listed>
  );
}
