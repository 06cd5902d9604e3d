import { useState } from 'preact/hooks';
import type { OncallSchedule, Team } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { useTeamScope, withTeam } from '../../api/team-scope.js';
import { Field } from '../../components/Field.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { Refusal } from '../../components/Refusal.js';
import { atLeast } from '../../components/team-roles.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';

/**
 * On-call schedules (GET /v1/oncall/schedules, `team_id` from the team switcher): name, team,
 * time zone, rotations; each opens its page. Below, a new schedule for a team where the caller is
 * a member or above (POST /v1/oncall/schedules; rotations are added on its page), and a link to
 * the caller's own contact methods (docs/api/teams.md "On-call schedules").
 */
export default function OncallPage() {
  const team_id = useTeamScope();
  const schedules = useApi<{ items: OncallSchedule[] }>(withTeam('/v1/oncall/schedules', team_id));
  const teams = useApi<Team[]>('/v1/teams');
  const writable = (teams.data ?? []).filter((x) => atLeast(x.role, 'member'));
  const [owner, setOwner] = useState('');
  const [name, setName] = useState('');
  const [time_zone, setTimeZone] = useState(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const chosen = owner || (writable.some((x) => x.id === team_id) ? team_id! : writable[0]?.id ?? '');
  const { busy, error, submit } = useSubmit(async () => {
    const made = await api<OncallSchedule>('POST', '/v1/oncall/schedules', { team_id: chosen, name, time_zone });
    navigate(`/oncall/${made.id}`);
  });
  const teamName = (id: string) => teams.data?.find((x) => x.id === id)?.name ?? id;
  return (
    <section>
      <h1>{t('oncall.title')}</h1>
      <p class="hint">{t('oncall.intro')} <Link href="/oncall/contacts">{t('oncall.contacts_link')}</Link></p>
      <Listed loaded={schedules} items={(d) => d.items} empty={t('oncall.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('oncall.name')}</th><th scope="col">{t('oncall.team')}</th><th scope="col">{t('oncall.time_zone')}</th><th scope="col">{t('oncall.rotations')}</th>
            </tr></thead>
            <tbody>{d.items.map((s) => (
              <tr key={s.id}>
                <td><Link href={`/oncall/${s.id}`}>{s.name}</Link></td><td>{teamName(s.team_id)}</td><td>{s.time_zone}</td><td>{s.rotations.length}</td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      <h2>{t('oncall.new')}</h2>
      {teams.data && writable.length === 0 ? (
        <p class="hint">{t('oncall.no_team')} <Link href="/teams">{t('oncall.teams_link')}</Link></p>
      ) : (
        <form onSubmit={submit} class="narrow">
          <Field id="ocs-team" label={t('oncall.team')}>
            <select id="ocs-team" required value={chosen} onChange={(e) => setOwner((e.target as HTMLSelectElement).value)}>
              {writable.map((x) => <option key={x.id} value={x.id}>{x.name}</option>)}
            </select>
          </Field>
          <Field id="ocs-name" label={t('oncall.name')}>
            <input id="ocs-name" required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <Field id="ocs-tz" label={t('oncall.time_zone')} hint={t('oncall.time_zone_hint')}>
            <input id="ocs-tz" required maxLength={64} value={time_zone} aria-describedby="ocs-tz-hint" onInput={(e) => setTimeZone((e.target as HTMLInputElement).value)} />
          </Field>
          <Refusal id="ocs-error" error={error} />
          <button type="submit" class="primary" disabled={busy || !chosen}>{t('oncall.create')}</button>
        </form>
      )}
    </section>
  );
}
