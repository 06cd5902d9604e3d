import { useState } from 'preact/hooks';
import type { DnsProviderName } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { PROVIDERS } from '../../api/vocabulary.js';
import { Refusal } from '../../components/Refusal.js';
import { t, type MessageKey } from '../../i18n/i18n.js';
import { refusedFields } from '../monitor-form/config-values.js';
import { TopField } from '../monitor-form/TopField.js';
import { PROVIDER_FIELDS, providerSettings, type SettingField } from './provider-fields.js';

/**
 * Store a DNS credential (POST /v1/dns-credentials): provider, name, the provider's settings and
 * its secret (a password field, emptied once sent: the API never returns it). A refusal naming
 * fields (`settings.zone`, `secret`) is shown at them.
 */
export function CredentialForm({ created }: { created: () => void }) {
  const [provider, setProvider] = useState<DnsProviderName>('rfc2136');
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', '/v1/dns-credentials', { provider, display_name: name, settings: providerSettings(provider, values), secret });
    setName(''); setValues({}); setSecret('');
    created();
  });
  const errors = refusedFields(error) ?? {};
  const fields = PROVIDER_FIELDS[provider] as readonly SettingField[];
  const set = (key: string) => (e: Event) => setValues({ ...values, [key]: (e.target as HTMLInputElement).value });
  return (
    <>
      <h2>{t('dns.new')}</h2>
      <form onSubmit={submit} class="narrow" aria-describedby={error ? 'dns-error' : undefined}>
        <TopField id="dns-provider" label={t('dns.provider')} error={errors.provider}>
          {(a) => (
            <select id="dns-provider" {...a} value={provider} onChange={(e) => { setProvider((e.target as HTMLSelectElement).value as DnsProviderName); setValues({}); }}>
              {PROVIDERS.map((p) => <option key={p} value={p}>{t(`dns.provider.${p}`)}</option>)}
            </select>
          )}
        </TopField>
        <TopField id="dns-name" label={t('dns.name')} error={errors.display_name}>
          {(a) => <input id="dns-name" {...a} required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
        </TopField>
        {fields.map((f) => (
          <TopField key={`${provider}.${f.key}`} id={`dns-${f.key}`} label={t(`dns.setting.${f.key}` as MessageKey)} error={errors[`settings.${f.key}`]}>
            {(a) => f.kind === 'choice' ? (
              <select id={`dns-${f.key}`} {...a} value={values[f.key] ?? ''} onChange={set(f.key)}>
                <option value="">{t('dns.default', { value: f.choices![0]! })}</option>
                {f.choices!.map((c) => <option key={c} value={c}>{c}</option>)}
              </select>
            ) : (
              <input id={`dns-${f.key}`} {...a} type={f.kind === 'number' ? 'number' : 'text'} inputMode={f.kind === 'number' ? 'numeric' : undefined} autoComplete="off"
                required={f.required} placeholder={f.placeholder} maxLength={253} value={values[f.key] ?? ''} onInput={set(f.key)} />
            )}
          </TopField>
        ))}
        <TopField id="dns-secret" label={t(`dns.secret.${provider}`)} error={errors.secret}>
          {(a) => <input id="dns-secret" {...a} type="password" autoComplete="new-password" required maxLength={500} value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />}
        </TopField>
        <p class="hint">{t('dns.secret_hint')}</p>
        <Refusal id="dns-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('dns.create')}</button>
      </form>
    </>
  );
}
