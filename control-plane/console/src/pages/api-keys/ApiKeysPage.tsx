import { useState } from 'preact/hooks';
import type { ApiKey } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { Field } from '../../components/Field.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { Empty, ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';

type KeyList = { api_keys: ApiKey[]; total: number };

/** API keys (/v1/account/api-keys): list, create (the secret shown once, with a copy button), revoke. */
export default function ApiKeysPage() {
  const keys = useApi<KeyList>('/v1/account/api-keys?limit=100');
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  async function create(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const created = await api<ApiKey & { key: string }>('POST', '/v1/account/api-keys', { name });
      setSecret(created.key);
      setName('');
      keys.reload();
    } catch (err) { setError(err); }
  }
  async function revoke(id: string) {
    try { await api<null>('DELETE', `/v1/account/api-keys/${encodeURIComponent(id)}`); keys.reload(); } catch (err) { setError(err); }
  }
  return (
    <section>
      <h1>{t('keys.title')}</h1>
      <form onSubmit={create} class="inline">
        <Field id="key-name" label={t('keys.name')}>
          <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit" class="primary">{t('keys.create')}</button>
      </form>
      <FormError id="keys-error" error={error} />
      {secret && <ShownOnce key={secret} intro={t('keys.secret_once')} value={secret} copyLabel={t('keys.copy')} testId="new-key" />}
      {keys.error ? <ErrorState error={keys.error} retry={keys.reload} />
        : !keys.data ? <Loading />
        : keys.data.api_keys.length === 0 ? <Empty>{t('keys.empty')}</Empty>
        : (
          <table>
            <thead><tr><th scope="col">{t('keys.name')}</th><th scope="col">{t('keys.prefix')}</th><th scope="col">{t('keys.scopes')}</th><th scope="col">{t('keys.status')}</th><th scope="col">{t('keys.created')}</th><th scope="col">{t('keys.last_used')}</th><th scope="col"><span class="sr-only">{t('keys.revoke')}</span></th></tr></thead>
            <tbody>
              {keys.data.api_keys.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td><td><code>{k.key_prefix}</code></td><td>{k.scopes.join(', ')}</td><td>{k.status}</td>
                  <td>{formatTime(k.created_at)}</td><td>{k.last_used_at ? formatTime(k.last_used_at) : t('keys.never')}</td>
                  <td>{k.status === 'active' && <button type="button" aria-label={t('keys.revoke_named', { name: k.name })} onClick={() => void revoke(k.id)}>{t('keys.revoke')}</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
    </section>
  );
}
