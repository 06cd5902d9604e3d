import { useState } from 'preact/hooks';
import type { Team } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { teamsChanged } from '../../api/team-scope.js';
import { Field } from '../../components/Field.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { Refusal } from '../../components/Refusal.js';
import { roleName } from '../../components/team-roles.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';

/**
 * Teams (GET /v1/teams): the caller's teams with its role, member count and time zone, each
 * opening its page; a new team (POST /v1/teams: the caller becomes its owner); a link to accept an
 * invitation (docs/api/teams.md).
 */
export default function TeamsPage() {
  const teams = useApi<Team[]>('/v1/teams');
  const [name, setName] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const made = await api<Team>('POST', '/v1/teams', { name });
    teamsChanged();
    navigate(`/teams/${made.id}`);
  });
  return (
    <section>
      <h1>{t('teams.title')}</h1>
      <p class="hint">{t('teams.intro')} <Link href="/teams/accept">{t('teams.accept_link')}</Link></p>
      <Listed loaded={teams} items={(d) => d} empty={t('teams.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('teams.name')}</th><th scope="col">{t('teams.your_role')}</th><th scope="col">{t('teams.members')}</th>
              <th scope="col">{t('teams.time_zone')}</th><th scope="col">{t('teams.created')}</th>
            </tr></thead>
            <tbody>{d.map((x) => (
              <tr key={x.id}>
                <td><Link href={`/teams/${x.id}`}>{x.name}</Link></td>
                <td>{roleName(x.role)}</td><td>{x.member_count}</td><td>{x.time_zone}</td><td>{formatTime(x.created_at)}</td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      <h2>{t('teams.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="team-name" label={t('teams.name')}>
          <input id="team-name" required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <Refusal id="team-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('teams.create')}</button>
      </form>
    </section>
  );
}
