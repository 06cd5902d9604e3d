import { useState } from 'preact/hooks';
import type { CertOrder, CertPage, DnsCredential } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { CHALLENGE_TYPES } from '../../api/vocabulary.js';
import { Link } from '../../components/Link.js';
import { Refusal } from '../../components/Refusal.js';
import { ErrorState } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { refusedFields } from '../monitor-form/config-values.js';
import { TopField } from '../monitor-form/TopField.js';

/**
 * Create a draft order (POST /v1/certificates/orders): SANs one a line (Unicode or ASCII, `*.`
 * leftmost), the challenge type and, for dns-01, one of the owner's live DNS credentials; opens
 * the draft's page, where it is submitted. A refusal naming a SAN (`sans.1`) is shown at the list.
 */
export function OrderForm() {
  const creds = useApi<CertPage<DnsCredential>>('/v1/dns-credentials?page_size=200');
  const live = (creds.data?.items ?? []).filter((c) => !c.revoked_at);
  const [sans, setSans] = useState('');
  const [challenge, setChallenge] = useState<(typeof CHALLENGE_TYPES)[number]>('dns-01');
  const [credential, setCredential] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const names = sans.split('\n').map((s) => s.trim()).filter(Boolean);
    const credential_id = challenge === 'dns-01' ? Number(credential || live[0]?.id) || null : null;
    const order = await api<CertOrder>('POST', '/v1/certificates/orders', { sans: names, challenge_type: challenge, ...(challenge === 'dns-01' ? { dns_credential_id: credential_id } : {}) });
    navigate(`/certificates/orders/${order.id}`);
  });
  const errors = refusedFields(error) ?? {};
  const sansError = errors.sans ?? Object.entries(errors).find(([k]) => k.startsWith('sans.'))?.[1];
  return (
    <>
      <h2>{t('orders.new')}</h2>
      <form onSubmit={submit} class="narrow" aria-describedby={error ? 'order-error' : undefined}>
        <TopField id="order-sans" label={t('orders.sans')} error={sansError}>
          {(a) => <textarea id="order-sans" {...a} aria-describedby={[a['aria-describedby'], 'order-sans-hint'].filter(Boolean).join(' ')} required rows={3} value={sans} onInput={(e) => setSans((e.target as HTMLTextAreaElement).value)} />}
        </TopField>
        <p class="hint" id="order-sans-hint">{t('orders.sans_hint')}</p>
        <TopField id="order-challenge" label={t('orders.challenge')} error={errors.challenge_type}>
          {(a) => (
            <select id="order-challenge" {...a} value={challenge} onChange={(e) => setChallenge((e.target as HTMLSelectElement).value as typeof challenge)}>
              {CHALLENGE_TYPES.map((c) => <option key={c} value={c}>{t(`orders.challenge.${c}`)}</option>)}
            </select>
          )}
        </TopField>
        {challenge === 'dns-01' && creds.error && <ErrorState error={creds.error} retry={creds.reload} />}
        {challenge === 'dns-01' && !creds.error && (live.length === 0
          ? <p class="hint">{creds.data ? t('orders.no_credentials') : t('state.loading')} <Link href="/dns-credentials">{t('certs.tab.credentials')}</Link></p>
          : (
            <TopField id="order-credential" label={t('orders.credential')} error={errors.dns_credential_id}>
              {(a) => (
                <select id="order-credential" {...a} value={credential || String(live[0]!.id)} onChange={(e) => setCredential((e.target as HTMLSelectElement).value)}>
                  {live.map((c) => <option key={c.id} value={String(c.id)}>{c.display_name} ({t(`dns.provider.${c.provider}`)})</option>)}
                </select>
              )}
            </TopField>
          ))}
        <Refusal id="order-error" error={error} />
        <button type="submit" class="primary" disabled={busy || (challenge === 'dns-01' && live.length === 0)}>{t('orders.create')}</button>
      </form>
    </>
  );
}
