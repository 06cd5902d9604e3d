import { useState } from 'preact/hooks';
import type { SecuritySummary } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { CodeList } from '../../components/CodeList.js';
import { Field } from '../../components/Field.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';

/**
 * Two-factor authentication (docs/api/accounts.md "Profile and two-factor authentication",
 * "Two-factor policy and recovery codes"): set TOTP up and confirm it (the first recovery codes
 * shown once), or, with TOTP on, get new recovery codes or turn TOTP off, each with a current code.
 */
export function TwoFactor({ summary, changed }: { summary: SecuritySummary; changed: () => void }) {
  const [setup, setSetup] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useSubmit(async () => { setSetup(await api('POST', '/v1/account/2fa/setup')); });
  const confirm = useSubmit(async () => {
    setCodes((await api<{ recovery_codes: string[] }>('POST', '/v1/account/2fa/enable', { code })).recovery_codes);
    setSetup(null); setCode('');
    changed();
  });
  const renew = useSubmit(async () => {
    setCodes((await api<{ recovery_codes: string[] }>('POST', '/v1/account/recovery-codes', { code })).recovery_codes);
    setCode('');
    changed();
  });
  const [disable, setDisable] = useState(false);
  const off = useSubmit(async () => { await api('POST', '/v1/account/2fa/disable', { code }); setCode(''); setDisable(false); changed(); });
  const codeField = (id: string) => (
    <Field id={id} label={t('auth.otp')}>
      <input id={id} inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
    </Field>
  );
  return (
    <>
      <h2>{t('security.totp')}</h2>
      {codes && <CodeList codes={codes} />}
      {!summary.totp_enabled && !setup && (
        <form onSubmit={start.submit}><p>{t('security.totp_off')}</p><FormError id="totp-start-error" error={start.error} /><button type="submit" class="primary">{t('security.totp_setup')}</button></form>
      )}
      {!summary.totp_enabled && setup && (
        <form onSubmit={confirm.submit} class="narrow">
          <p>{t('security.totp_scan')}</p>
          <p><code class="wrap" data-testid="totp-secret">{setup.secret}</code></p>
          <p class="hint"><code class="wrap">{setup.otpauth_uri}</code></p>
          {codeField('totp-confirm')}
          <FormError id="totp-confirm-error" error={confirm.error} />
          <button type="submit" class="primary">{t('security.totp_enable')}</button>
        </form>
      )}
      {summary.totp_enabled && (
        <>
          <p>{t('security.totp_on', { n: summary.recovery_codes_left })}</p>
          <form onSubmit={disable ? off.submit : renew.submit} class="narrow">
            {codeField('totp-proof')}
            <label class="check"><input type="checkbox" checked={disable} onChange={(e) => setDisable((e.target as HTMLInputElement).checked)} />{t('security.totp_disable')}</label>
            <FormError id="totp-proof-error" error={disable ? off.error : renew.error} />
            <button type="submit" class={disable ? 'danger' : 'primary'}>{disable ? t('security.totp_disable_go') : t('security.codes_new')}</button>
          </form>
        </>
      )}
    </>
  );
}
