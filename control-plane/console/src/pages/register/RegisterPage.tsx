import { useState } from 'preact/hooks';
import { openSession } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { CredentialFields } from '../../components/CredentialFields.js';
import { FormError } from '../../components/states.js';
import { Link } from '../../components/Link.js';
import { t } from '../../i18n/i18n.js';

/** Create an account (POST /v1/auth/register in cookie mode); the API's refusal (weak password, taken email) is shown as it says it. */
export default function RegisterPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(() => openSession('/v1/auth/register', { email, password }));
  return (
    <section class="narrow">
      <h1>{t('auth.register_title')}</h1>
      <form onSubmit={submit}>
        <CredentialFields form="register" email={email} password={password} onEmail={setEmail} onPassword={setPassword} />
        <FormError id="register-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{busy ? t('auth.working') : t('auth.register')}</button>
      </form>
      <p><Link href="/login">{t('auth.to_login')}</Link></p>
    </section>
  );
}
