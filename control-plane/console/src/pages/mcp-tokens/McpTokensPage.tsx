import { useState } from 'preact/hooks';
import type { McpToken } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { Refusal } from '../../components/Refusal.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { McpTabs } from './McpTabs.js';
import { TokenFields } from './TokenFields.js';
import { createTokenBody, EMPTY_TOKEN, tokenState, type TokenValues } from './token-values.js';

/**
 * MCP tokens (GET /v1/mcp/tokens): name, type, the token's start and end, expiry, last use, state;
 * each links to its page (edit, revoke with a reason) and its sessions. The form makes a new one
 * (POST /v1/mcp/tokens): its `svc_mcp_` secret is shown once, with a copy button (docs/api/mcp.md).
 */
export default function McpTokensPage() {
  const tokens = useApi<McpToken[]>('/v1/mcp/tokens');
  const [v, setValues] = useState<TokenValues>(EMPTY_TOKEN);
  const [secret, setSecret] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setSecret(null);
    const made = await api<{ token: McpToken; secret: string }>('POST', '/v1/mcp/tokens', createTokenBody(v));
    setSecret(made.secret);
    setValues(EMPTY_TOKEN);
    tokens.reload();
  });
  return (
    <section>
      <h1>{t('mcp.title')}</h1>
      <McpTabs here="/mcp-tokens" />
      <p class="hint">{t('mcp.intro')}</p>
      <Listed loaded={tokens} items={(d) => d} empty={t('mcp.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('mcp.name')}</th><th scope="col">{t('mcp.type')}</th><th scope="col">{t('mcp.token')}</th><th scope="col">{t('mcp.expires_at')}</th>
              <th scope="col">{t('mcp.last_used')}</th><th scope="col">{t('mcp.state')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
            </tr></thead>
            <tbody>{d.map((tk) => (
              <tr key={tk.id}>
                <td><Link href={`/mcp-tokens/${tk.id}`}>{tk.name}</Link></td>
                <td>{t(`mcp.type.${tk.type}`)}</td>
                <td><code>{tk.token_display}</code></td>
                <td>{formatTime(tk.expires_at)}</td>
                <td>{tk.last_used_at ? formatTime(tk.last_used_at) : t('mcp.never')}</td>
                <td>{t(`mcp.state.${tokenState(tk)}`)}{tk.revoke_reason && <p class="hint">{tk.revoke_reason}</p>}</td>
                <td class="actions"><Link href={`/mcp-sessions?token_id=${tk.id}`}>{t('mcp.sessions_of')}<span class="sr-only"> {tk.name}</span></Link></td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      <h2>{t('mcp.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <TokenFields v={v} set={setValues} isNew />
        <Refusal id="mcp-form-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('mcp.create')}</button>
      </form>
      {secret && <ShownOnce key={secret} intro={t('mcp.secret_once')} value={secret} copyLabel={t('mcp.copy_secret')} testId="mcp-secret" />}
    </section>
  );
}
