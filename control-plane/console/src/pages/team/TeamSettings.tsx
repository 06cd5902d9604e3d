import { useEffect, useState } from 'preact/hooks';
import type { Team } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { Refusal } from '../../components/Refusal.js';
import { atLeast } from '../../components/team-roles.js';
import { t } from '../../i18n/i18n.js';

/**
 * A team's settings (PATCH /v1/teams/{id}): the name (owners), the IANA time zone of the team's
 * mute and recurring maintenance windows and whether every member needs two-factor
 * authentication (admins and owners). Only what changed, and what the caller's role may change,
 * is sent; the fields it may not change are disabled with the reason.
 */
export function TeamSettings({ team, saved }: { team: Team; saved: () => void }) {
  const [name, setName] = useState(team.name);
  const [time_zone, setTimeZone] = useState(team.time_zone);
  const [require_2fa, setRequire] = useState(team.require_2fa);
  const [done, setDone] = useState(false);
  useEffect(() => { setName(team.name); setTimeZone(team.time_zone); setRequire(team.require_2fa); }, [team]);
  const owner = team.role === 'owner';
  const admin = atLeast(team.role, 'admin');
  const { busy, error, submit } = useSubmit(async () => {
    setDone(false);
    const body = {
      ...(owner && name !== team.name ? { name } : {}),
      ...(admin && time_zone !== team.time_zone ? { time_zone } : {}),
      ...(admin && require_2fa !== team.require_2fa ? { require_2fa } : {}),
    };
    if (Object.keys(body).length === 0) return;
    await api<Team>('PATCH', `/v1/teams/${encodeURIComponent(team.id)}`, body);
    setDone(true);
    saved();
  });
  return (
    <>
      <h2>{t('team.settings')}</h2>
      {!admin && <p class="hint" id="team-settings-why">{t('team.settings_admins_only')}</p>}
      <form onSubmit={submit} class="narrow">
        <Field id="team-rename" label={t('teams.name')} hint={owner ? undefined : t('team.rename_owners_only')}>
          <input id="team-rename" required maxLength={100} value={name} disabled={!owner} aria-describedby={owner ? undefined : 'team-rename-hint'}
            onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="team-tz" label={t('teams.time_zone')} hint={t('team.time_zone_hint')}>
          <input id="team-tz" required maxLength={64} value={time_zone} disabled={!admin} aria-describedby="team-tz-hint"
            onInput={(e) => setTimeZone((e.target as HTMLInputElement).value)} />
        </Field>
        <div class="field">
          <label><input type="checkbox" checked={require_2fa} disabled={!admin} onChange={(e) => setRequire((e.target as HTMLInputElement).checked)} /> {t('team.require_2fa')}</label>
        </div>
        <Refusal id="team-settings-error" error={error} />
        <button type="submit" class="primary" disabled={busy || !admin} aria-describedby={admin ? undefined : 'team-settings-why'}>{t('team.save')}</button>
        {done && <p role="status">{t('team.saved')}</p>}
      </form>
    </>
  );
}
