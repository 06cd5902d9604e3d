import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { Empty, ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';

type Token = { id: string; label: string | null; status: 'active' | 'used' | 'expired'; preview: string; country_code: string | null; shared: boolean; created_at: string; expires_at: string };

/**
 * The caller's enrollment tokens (/v1/enrollment-tokens): create one (label, country, shared) and
 * get the one-line install command with the token, shown once; list and revoke
 * (docs/api/nodes.md, docs/operators/install.md).
 */
export function EnrollmentTokens() {
  const tokens = useApi<{ tokens: Token[] }>('/v1/enrollment-tokens');
  const [label, setLabel] = useState('');
  const [country, setCountry] = useState('');
  const [shared, setShared] = useState(false);
  const [command, setCommand] = useState<string | null>(null);
  const { error, setError, submit } = useSubmit(async () => {
    const created = await api<{ token: string }>('POST', '/v1/enrollment-tokens', { ...(label ? { label } : {}), ...(country ? { country_code: country } : {}), shared });
    setCommand(`curl -fsSL ${location.origin}/install.sh | VANTAGE_TOKEN=${created.token} sh`);
    tokens.reload();
  });
  async function revoke(id: string) {
    try { await api<null>('DELETE', `/v1/enrollment-tokens/${encodeURIComponent(id)}`); tokens.reload(); } catch (err) { setError(err); }
  }
  return (
    <>
      <h2>{t('tokens.title')}</h2>
      <form onSubmit={submit} class="inline">
        <Field id="tok-label" label={t('tokens.label')}><input id="tok-label" maxLength={40} value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} /></Field>
        <Field id="tok-country" label={t('nodes.country')}><input id="tok-country" maxLength={2} size={3} value={country} onInput={(e) => setCountry((e.target as HTMLInputElement).value)} /></Field>
        <label class="check"><input type="checkbox" checked={shared} onChange={(e) => setShared((e.target as HTMLInputElement).checked)} />{t('tokens.shared')}</label>
        <button type="submit" class="primary">{t('tokens.create')}</button>
      </form>
      <FormError id="tok-error" error={error} />
      {command && <ShownOnce key={command} intro={t('tokens.command_once')} value={command} copyLabel={t('tokens.copy')} testId="install-command" />}
      {tokens.error ? <ErrorState error={tokens.error} retry={tokens.reload} />
        : !tokens.data ? <Loading />
        : tokens.data.tokens.length === 0 ? <Empty>{t('tokens.empty')}</Empty>
        : (
          <table>
            <thead><tr><th scope="col">{t('tokens.label')}</th><th scope="col">{t('keys.prefix')}</th><th scope="col">{t('nodes.status')}</th><th scope="col">{t('nodes.country')}</th><th scope="col">{t('keys.created')}</th><th scope="col">{t('tokens.expires')}</th><th scope="col"><span class="sr-only">{t('keys.revoke')}</span></th></tr></thead>
            <tbody>{tokens.data.tokens.map((k) => (
              <tr key={k.id}>
                <td>{k.label ?? ''}</td><td><code>{k.preview}</code></td><td>{t(`tokens.status.${k.status}`)}</td><td>{k.country_code ?? ''}</td>
                <td>{formatTime(k.created_at)}</td><td>{formatTime(k.expires_at)}</td>
                <td>{k.status === 'active' && <button type="button" aria-label={t('tokens.revoke_named', { name: k.label ?? k.preview })} onClick={() => void revoke(k.id)}>{t('keys.revoke')}</button>}</td>
              </tr>
            ))}</tbody>
          </table>
        )}
    </>
  );
}
