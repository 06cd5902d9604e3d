import { useEffect, useState } from 'preact/hooks';
import type { McpToken } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { Link } from '../../components/Link.js';
import { Refusal } from '../../components/Refusal.js';
import { ErrorState, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { McpTabs } from '../mcp-tokens/McpTabs.js';
import { TokenFields } from '../mcp-tokens/TokenFields.js';
import { tokenState, tokenValuesOf, updateTokenBody, type TokenValues } from '../mcp-tokens/token-values.js';

/**
 * One MCP token (GET /v1/mcp/tokens/{id}): its facts, its settings saved with PATCH, and revoke
 * with a reason (DELETE with `{revoke_reason}`); a revoked token is shown, not changed
 * (docs/api/mcp.md "Tokens").
 */
export default function McpTokenPage({ params }: { params: Record<string, string> }) {
  const path = `/v1/mcp/tokens/${encodeURIComponent(params.id!)}`;
  const token = useApi<McpToken>(path);
  // null until the loaded token fills the form: the form is not shown before, so nothing typed
  // into it is overwritten when the values arrive.
  const [v, setValues] = useState<TokenValues | null>(null);
  const [saved, setSaved] = useState(false);
  const [reason, setReason] = useState('');
  useEffect(() => { if (token.data) setValues(tokenValuesOf(token.data)); }, [token.data]);
  const save = useSubmit(async () => {
    setSaved(false);
    await api('PATCH', path, updateTokenBody(v!, token.data!));
    setSaved(true);
    token.reload();
  });
  const revoke = useSubmit(async () => {
    await api('DELETE', path, reason.trim() ? { revoke_reason: reason.trim() } : {});
    token.reload();
  });
  if (token.error) return <ErrorState error={token.error} retry={token.reload} />;
  if (!token.data || !v) return <Loading />;
  const tk = token.data;
  return (
    <section>
      <h1>{tk.name}</h1>
      <McpTabs here="" />
      <dl class="facts">
        <dt>{t('mcp.type')}</dt><dd>{t(`mcp.type.${tk.type}`)}</dd>
        <dt>{t('mcp.token')}</dt><dd><code>{tk.token_display}</code></dd>
        <dt>{t('mcp.state')}</dt><dd>{t(`mcp.state.${tokenState(tk)}`)}</dd>
        {tk.revoke_reason && <><dt>{t('mcp.revoke_reason')}</dt><dd>{tk.revoke_reason}</dd></>}
        <dt>{t('mcp.expires_at')}</dt><dd>{formatTime(tk.expires_at)}</dd>
        <dt>{t('mcp.last_used')}</dt><dd>{tk.last_used_at ? formatTime(tk.last_used_at) : t('mcp.never')}</dd>
        {tk.last_renewed_at && <><dt>{t('mcp.last_renewed')}</dt><dd>{formatTime(tk.last_renewed_at)}</dd></>}
        <dt>{t('mcp.created')}</dt><dd>{formatTime(tk.created_at)}</dd>
      </dl>
      <p><Link href={`/mcp-sessions?token_id=${tk.id}`}>{t('mcp.sessions_of')}</Link></p>
      {!tk.revoked && <>
        <h2>{t('mcp.settings')}</h2>
        <form onSubmit={save.submit} class="narrow">
          <TokenFields v={v} set={setValues} isNew={false} />
          <Refusal id="mcp-save-error" error={save.error} />
          <button type="submit" class="primary" disabled={save.busy}>{t('mcp.save')}</button>
          {saved && <p class="saved" role="status">{t('mcp.saved')}</p>}
        </form>
        <h2>{t('mcp.revoke')}</h2>
        <form onSubmit={revoke.submit} class="narrow">
          <p class="hint">{t('mcp.revoke_hint')}</p>
          <Field id="mcp-revoke-reason" label={t('mcp.revoke_reason')}><input id="mcp-revoke-reason" maxLength={500} value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} /></Field>
          <Refusal id="mcp-revoke-error" error={revoke.error} />
          <button type="submit" class="danger" disabled={revoke.busy}>{t('mcp.revoke_button')}</button>
        </form>
      </>}
    </section>
  );
}
