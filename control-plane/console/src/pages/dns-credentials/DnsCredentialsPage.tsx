import { useState } from 'preact/hooks';
import type { CertPage, DnsCredential } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { useApi } from '../../api/use-api.js';
import { Listed } from '../../components/Listed.js';
import { ListPager } from '../../components/Pager.js';
import { FormError } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { CertificateTabs } from '../certificates/CertificateTabs.js';
import { toneOf } from '../certificates/status-tone.js';
import { CredentialForm } from './CredentialForm.js';

/**
 * DNS credentials (GET /v1/dns-credentials, 20 a page; `page` in the URL): name, provider, health
 * and why it failed, when checked, revoked; check one now (`POST …/{id}/check`), revoke it
 * (`POST …/{id}/revoke`); the form stores a new one (docs/api/certificates.md "DNS credentials").
 * Settings and secrets are never shown: the API returns neither.
 */
export default function DnsCredentialsPage() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? '1') || 1;
  const creds = useApi<CertPage<DnsCredential>>(`/v1/dns-credentials?page=${page}&page_size=20`);
  const action = useAction();
  const [checked, setChecked] = useState<DnsCredential | null>(null);
  const check = (c: DnsCredential) => action.run(async () => {
    setChecked(null);
    setChecked(await api<DnsCredential>('POST', `/v1/dns-credentials/${c.id}/check`));
    creds.reload();
  });
  const revoke = (c: DnsCredential) => action.run(async () => {
    if (!confirm(t('dns.revoke_confirm', { name: c.display_name }))) return;
    await api('POST', `/v1/dns-credentials/${c.id}/revoke`);
    creds.reload();
  });
  return (
    <section>
      <h1>{t('dns.title')}</h1>
      <CertificateTabs here="/dns-credentials" />
      <p class="hint">{t('dns.intro')}</p>
      <FormError id="dns-action-error" error={action.error} />
      {checked && (
        <p role="status" class={checked.health_status === 'valid' ? undefined : 'form-error'}>
          {t(`dns.checked.${checked.health_status}`, { name: checked.display_name })}{checked.health_error && `: ${checked.health_error}`}
        </p>
      )}
      <Listed loaded={creds} items={(d) => d.items} empty={t('dns.empty')}>
        {(d) => (
          <>
            <table>
              <thead><tr>
                <th scope="col">{t('dns.name')}</th><th scope="col">{t('dns.provider')}</th><th scope="col">{t('dns.health')}</th>
                <th scope="col">{t('dns.checked_at')}</th><th scope="col">{t('keys.created')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
              </tr></thead>
              <tbody>{d.items.map((c) => (
                <tr key={c.id} data-credential={c.id}>
                  <td>{c.display_name}</td>
                  <td>{t(`dns.provider.${c.provider}`)}</td>
                  <td>
                    {c.revoked_at ? t('dns.revoked_at', { at: formatTime(c.revoked_at) }) : <span class={toneOf(c.health_status)}>{t(`dns.health.${c.health_status}`)}</span>}
                    {c.health_error && <p class="hint">{c.health_error}</p>}
                  </td>
                  <td>{formatTime(c.health_checked_at)}</td>
                  <td>{formatTime(c.created_at)}</td>
                  <td class="actions">
                    {!c.revoked_at && <>
                      <button type="button" aria-label={t('dns.check_named', { name: c.display_name })} onClick={() => void check(c)}>{t('dns.check')}</button>
                      <button type="button" class="danger" aria-label={t('dns.revoke_named', { name: c.display_name })} onClick={() => void revoke(c)}>{t('dns.revoke')}</button>
                    </>}
                  </td>
                </tr>
              ))}</tbody>
            </table>
            <ListPager list={d} onPage={(p) => navigate(p > 1 ? `/dns-credentials?page=${p}` : '/dns-credentials', true)} />
          </>
        )}
      </Listed>
      <CredentialForm created={creds.reload} />
    </section>
  );
}
