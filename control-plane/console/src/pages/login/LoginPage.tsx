import { useState } from 'preact/hooks';
import { ApiFailure, openSession } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { CredentialFields } from '../../components/CredentialFields.js';
import { Field } from '../../components/Field.js';
import { FormError } from '../../components/states.js';
import { Link } from '../../components/Link.js';
import { t } from '../../i18n/i18n.js';

/** Log in (POST /v1/auth/login in cookie mode); asks for the TOTP code when the API says 2FA is on. */
export default function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [needOtp, setNeedOtp] = useState(false);
  const { busy, error, submit } = useSubmit(
    () => openSession('/v1/auth/login', { email, password, ...(needOtp && otp ? { otp } : {}) }),
    (err) => { if (err instanceof ApiFailure && err.code === 'AUTH_2FA_REQUIRED' && !needOtp) { setNeedOtp(true); return true; } return false; },
  );
  return (
    <section class="narrow">
      <h1>{t('auth.login_title')}</h1>
      <form onSubmit={submit}>
        <CredentialFields form="login" email={email} password={password} onEmail={setEmail} onPassword={setPassword} />
        {needOtp && (
          <Field id="login-otp" label={t('auth.otp')} hint={t('auth.otp_hint')}>
            <input id="login-otp" name="otp" inputMode="numeric" autoComplete="one-time-code" aria-describedby="login-otp-hint" required value={otp} onInput={(e) => setOtp((e.target as HTMLInputElement).value)} />
          </Field>
        )}
        <FormError id="login-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{busy ? t('auth.working') : t('auth.login')}</button>
      </form>
      <p><Link href="/register">{t('auth.to_register')}</Link></p>
    </section>
  );
}
