import type { OAuthIdentity, OAuthProvider } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { Listed } from '../../components/Listed.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { startLink } from './link-flow.js';

/**
 * Sign-in providers linked to the account (GET /v1/account/identities), a "Link" button for each
 * configured provider (GET /v1/auth/oauth/providers) not linked yet, which starts a link flow and
 * goes to the provider (finished on /security/link), and unlink (DELETE …/{id}; the API refuses
 * to remove the last way to log in) (docs/api/accounts.md "Single sign-on (OIDC, GitHub)").
 */
export function Identities() {
  const identities = useApi<{ identities: OAuthIdentity[] }>('/v1/account/identities');
  const providers = useApi<{ providers: OAuthProvider[] }>('/v1/auth/oauth/providers');
  const action = useAction();
  const unlink = (i: OAuthIdentity) => action.run(async () => {
    if (!confirm(t('identities.unlink_confirm', { name: i.provider_name ?? i.provider }))) return;
    await api('DELETE', `/v1/account/identities/${encodeURIComponent(i.id)}`);
    identities.reload();
  });
  const linked = new Set(identities.data?.identities.map((i) => i.provider));
  const linkable = providers.data?.providers.filter((p) => !linked.has(p.id)) ?? [];
  return (
    <>
      <h2>{t('identities.title')}</h2>
      <FormError id="identities-error" error={action.error} />
      <Listed loaded={identities} items={(d) => d.identities} empty={t('identities.empty')}>
        {(d) => (
          <table>
            <thead><tr><th scope="col">{t('identities.provider')}</th><th scope="col">{t('profile.email')}</th><th scope="col">{t('keys.created')}</th><th scope="col">{t('identities.last_login')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th></tr></thead>
            <tbody>{d.identities.map((i) => (
              <tr key={i.id}>
                <td>{i.provider_name ?? i.provider}</td><td>{i.email ?? ''}</td><td>{formatTime(i.created_at)}</td><td>{i.last_login_at ? formatTime(i.last_login_at) : t('keys.never')}</td>
                <td><button type="button" class="danger" aria-label={t('identities.unlink_named', { name: i.provider_name ?? i.provider })} onClick={() => void unlink(i)}>{t('identities.unlink')}</button></td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      {providers.error ? <ErrorState error={providers.error} retry={providers.reload} />
        : !providers.data || !identities.data ? (identities.data ? <Loading /> : null)
        : providers.data.providers.length === 0 ? <p class="hint">{t('identities.none_configured')}</p>
        : linkable.length > 0 && (
          <div class="actions">{linkable.map((p) => (
            <button key={p.id} type="button" onClick={() => void action.run(() => startLink(p.id))}>{t('identities.link', { name: p.name })}</button>
          ))}</div>
        )}
    </>
  );
}
