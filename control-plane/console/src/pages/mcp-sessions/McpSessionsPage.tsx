import type { McpSession, McpToken } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { ListPager } from '../../components/Pager.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { useUrlFilters } from '../../url-filters.js';
import { McpTabs } from '../mcp-tokens/McpTabs.js';

type SessionPage = { items: McpSession[]; total: number; page: number; page_size: number; has_more: boolean };

/**
 * MCP sessions (GET /v1/mcp/sessions, newest first, 20 a page; `token_id` and `page` in the URL):
 * the token, client kind and version, address, start, last activity, end, tool calls and units;
 * each links to its tool calls (docs/api/mcp.md "Sessions").
 */
export default function McpSessionsPage() {
  const { values: { token_id }, page, go } = useUrlFilters('/mcp-sessions', ['token_id'] as const);
  const params = new URLSearchParams({ page: String(page), page_size: '20', ...(token_id ? { token_id } : {}) });
  const sessions = useApi<SessionPage>(`/v1/mcp/sessions?${params}`);
  const tokens = useApi<McpToken[]>('/v1/mcp/tokens');
  const names = new Map((tokens.data ?? []).map((tk) => [tk.id, tk.name]));
  return (
    <section>
      <h1>{t('mcp.sessions_title')}</h1>
      <McpTabs here="/mcp-sessions" />
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>{t('mcp.token')}
          <select value={token_id} onChange={(e) => go({ token_id: (e.target as HTMLSelectElement).value })}>
            <option value="">{t('mcp.all_tokens')}</option>
            {(tokens.data ?? []).map((tk) => <option key={tk.id} value={tk.id}>{tk.name}</option>)}
          </select>
        </label>
      </form>
      <Listed loaded={sessions} items={(d) => d.items} empty={t('mcp.sessions_empty')}>
        {(d) => (
          <>
            <table>
              <thead><tr>
                <th scope="col">{t('mcp.started')}</th><th scope="col">{t('mcp.token')}</th><th scope="col">{t('mcp.client')}</th><th scope="col">{t('mcp.client_ip')}</th>
                <th scope="col">{t('mcp.last_activity')}</th><th scope="col">{t('mcp.ended')}</th><th scope="col">{t('mcp.calls')}</th><th scope="col">{t('mcp.units')}</th>
              </tr></thead>
              <tbody>{d.items.map((s) => (
                <tr key={s.id}>
                  <td>{formatTime(s.started_at)}</td>
                  <td>{names.get(s.token_id) ?? s.token_id}</td>
                  <td>{t(`mcp.client.${s.client_id}`)} {s.client_version && <span class="muted">{s.client_version}</span>}</td>
                  <td><code>{s.client_ip}</code></td>
                  <td>{formatTime(s.last_activity_at)}</td>
                  <td>{s.ended_at ? formatTime(s.ended_at) : t('mcp.open')}</td>
                  <td><Link href={`/mcp-tool-calls?session_id=${s.id}`}>{t('mcp.calls_n', { n: s.total_tool_calls })}</Link></td>
                  <td>{s.total_units}</td>
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
