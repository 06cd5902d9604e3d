import { useEffect, useState } from 'preact/hooks';
import type { Profile } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { Field } from '../../components/Field.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';

/** The profile (GET/PATCH /v1/account/profile): display name and time zone; language and theme are in the header. */
export default function ProfilePage() {
  const profile = useApi<Profile>('/v1/account/profile');
  const [display_name, setName] = useState('');
  const [timezone, setTimezone] = useState('');
  const [status, setStatus] = useState<'idle' | 'saved'>('idle');
  const [error, setError] = useState<unknown>(null);
  // The form is shown once the saved profile has filled it, never with its empty defaults.
  const [filled, setFilled] = useState(false);
  useEffect(() => {
    if (profile.data) { setName(profile.data.display_name ?? ''); setTimezone(profile.data.timezone); setFilled(true); }
  }, [profile.data]);
  if (profile.error) return <ErrorState error={profile.error} retry={profile.reload} />;
  if (!profile.data || !filled) return <Loading />;
  async function save(e: Event) {
    e.preventDefault();
    setError(null);
    setStatus('idle');
    try {
      await api<Profile>('PATCH', '/v1/account/profile', { display_name, timezone });
      setStatus('saved');
    } catch (err) { setError(err); }
  }
  return (
    <section>
      <h1>{t('profile.title')}</h1>
      <dl class="facts">
        <dt>{t('profile.email')}</dt><dd>{profile.data.email}</dd>
        <dt>{t('profile.two_factor')}</dt><dd>{profile.data.two_factor_enabled ? t('profile.on') : t('profile.off')}</dd>
      </dl>
      <form onSubmit={save} class="narrow">
        <Field id="profile-name" label={t('profile.display_name')}>
          <input id="profile-name" value={display_name} maxLength={64} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="profile-tz" label={t('profile.timezone')}>
          <input id="profile-tz" value={timezone} maxLength={64} onInput={(e) => setTimezone((e.target as HTMLInputElement).value)} />
        </Field>
        <FormError id="profile-error" error={error} />
        <button type="submit" class="primary">{t('profile.save')}</button>
        {status === 'saved' && <p role="status">{t('profile.saved')}</p>}
      </form>
    </section>
  );
}
