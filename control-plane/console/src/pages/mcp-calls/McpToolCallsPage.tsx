import type { McpToolCall } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { MCP_CALL_STATUSES } from '../../api/vocabulary.js';
import { Listed } from '../../components/Listed.js';
import { ListPager } from '../../components/Pager.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { useUrlFilters } from '../../url-filters.js';
import { McpTabs } from '../mcp-tokens/McpTabs.js';

type CallPage = { items: McpToolCall[]; total: number; page: number; page_size: number; has_more: boolean };
/** The filters of GET /v1/mcp/tool-calls the page keeps in its URL. */
const FILTERS = ['session_id', 'tool_name', 'status', 'from'] as const;
/** The time windows offered for `from` (the API's relative times). */
const WINDOWS = ['-1h', '-24h', '-7d'] as const;

/**
 * MCP tool calls (GET /v1/mcp/tool-calls, newest first, 20 a page), filtered by session, tool,
 * status and time window from the URL (so a filtered list is a link): when, tool, status, latency,
 * error class and detail, request and answer sizes (docs/api/mcp.md "Tool calls").
 */
export default function McpToolCallsPage() {
  const { values: filters, page, go } = useUrlFilters('/mcp-tool-calls', FILTERS);
  const params = new URLSearchParams({ page: String(page), page_size: '20' });
  for (const k of FILTERS) if (filters[k]) params.set(k, filters[k]);
  const calls = useApi<CallPage>(`/v1/mcp/tool-calls?${params}`);
  const text = (k: 'session_id' | 'tool_name') => ({
    value: filters[k], onChange: (e: Event) => {
      const value = (e.target as HTMLInputElement).value.trim();
      go(k === 'session_id' ? { session_id: value } : { tool_name: value });
    },
  });
  const filtered = FILTERS.some((k) => filters[k]);
  return (
    <section>
      <h1>{t('mcp.calls_title')}</h1>
      <McpTabs here="/mcp-tool-calls" />
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>{t('mcp.tool')}<input {...text('tool_name')} maxLength={64} placeholder="probe_http" /></label>
        <label>{t('mcp.status')}
          <select value={filters.status} onChange={(e) => go({ status: (e.target as HTMLSelectElement).value })}>
            <option value="">{t('monitors.any')}</option>
            {MCP_CALL_STATUSES.map((s) => <option key={s} value={s}>{t(`mcp.status.${s}`)}</option>)}
          </select>
        </label>
        <label>{t('mcp.window')}
          <select value={filters.from} onChange={(e) => go({ from: (e.target as HTMLSelectElement).value })}>
            <option value="">{t('mcp.any_time')}</option>
            {WINDOWS.map((w) => <option key={w} value={w}>{t(`mcp.window.${w}`)}</option>)}
          </select>
        </label>
        <label>{t('mcp.session')}<input {...text('session_id')} maxLength={64} placeholder="mcps_…" /></label>
      </form>
      <Listed loaded={calls} items={(d) => d.items} empty={filtered ? t('mcp.calls_empty_filtered') : t('mcp.calls_empty')}>
        {(d) => (
          <>
            <table>
              <thead><tr>
                <th scope="col">{t('mcp.when')}</th><th scope="col">{t('mcp.tool')}</th><th scope="col">{t('mcp.status')}</th><th scope="col">{t('mcp.latency_ms')}</th>
                <th scope="col">{t('mcp.error')}</th><th scope="col">{t('mcp.bytes')}</th>
              </tr></thead>
              <tbody>{d.items.map((c) => (
                <tr key={c.id}>
                  <td>{formatTime(c.created_at)}</td>
                  <td><code>{c.tool_name}</code></td>
                  <td><span class={`badge ${c.status === 'success' ? 'state-up' : 'state-down'}`}>{t(`mcp.status.${c.status}`)}</span></td>
                  <td>{c.latency_ms}</td>
                  <td class="clip">{c.error_class && <code>{c.error_class}</code>} {c.error_detail ?? ''}</td>
                  <td>{t('mcp.bytes_in_out', { req: c.request_bytes, res: c.response_bytes })}</td>
                </tr>
              ))}</tbody>
            </table>
            <ListPager list={d} onPage={(p) => go({ page: p })} />
          </>
        )}
      </Listed>
    </section>
  );
}
