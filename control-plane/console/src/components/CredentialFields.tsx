import { Field } from './Field.js';
import { t } from '../i18n/i18n.js';

/** The identifier and password fields of the login and register forms (`form` prefixes the ids). */
export function CredentialFields({ form, email, password, onEmail, onPassword }: {
  form: 'login' | 'register'; email: string; password: string; onEmail: (v: string) => void; onPassword: (v: string) => void;
}) {
  const login = form === 'login';
  return (
    <>
      <Field id={`${form}-email`} label={login ? t('auth.email') : t('auth.email_only')}>
        <input id={`${form}-email`} name="email" type={login ? 'text' : 'email'} autoComplete={login ? 'username' : 'email'} required value={email} onInput={(e) => onEmail((e.target as HTMLInputElement).value)} />
      </Field>
      <Field id={`${form}-password`} label={t('auth.password')} {...(login ? {} : { hint: t('auth.password_hint') })}>
        <input id={`${form}-password`} name="password" type="password" autoComplete={login ? 'current-password' : 'new-password'} {...(login ? {} : { 'aria-describedby': 'register-password-hint' })} required value={password} onInput={(e) => onPassword((e.target as HTMLInputElement).value)} />
      </Field>
    </>
  );
}
