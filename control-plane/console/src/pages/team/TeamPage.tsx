import type { Profile, Team, TeamMember } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { useApi } from '../../api/use-api.js';
import { teamsChanged } from '../../api/team-scope.js';
import { Link } from '../../components/Link.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { atLeast, roleGate, roleName } from '../../components/team-roles.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { InvitesPanel } from './InvitesPanel.js';
import { MembersTable } from './MembersTable.js';
import { TeamSettings } from './TeamSettings.js';

/**
 * One team (docs/api/teams.md): its settings (name for owners; time zone and the two-factor
 * requirement for admins and owners), the members with their roles (change a role, remove), the
 * invitations (admins and owners), leave, and delete (owners). Controls the caller's role may not
 * use are disabled with the reason.
 */
export default function TeamPage({ params }: { params: Record<string, string> }) {
  const path = `/v1/teams/${encodeURIComponent(params.id!)}`;
  const team = useApi<Team>(path);
  const members = useApi<TeamMember[]>(`${path}/members`);
  const me = useApi<Profile>('/v1/account/profile');
  const action = useAction();
  if (team.error) return <ErrorState error={team.error} retry={team.reload} />;
  if (me.error) return <ErrorState error={me.error} retry={me.reload} />;
  if (!team.data || !me.data) return <Loading />;
  const x = team.data;
  const changed = () => { team.reload(); members.reload(); teamsChanged(); };
  const leave = () => action.run(async () => {
    if (!confirm(t('team.leave_confirm', { name: x.name }))) return;
    await api('DELETE', `${path}/members/${encodeURIComponent(me.data!.id)}`);
    teamsChanged();
    navigate('/teams');
  });
  const remove = () => action.run(async () => {
    if (!confirm(t('team.delete_confirm', { name: x.name }))) return;
    await api('DELETE', path);
    teamsChanged();
    navigate('/teams');
  });
  return (
    <section>
      <p><Link href="/teams">{t('team.back')}</Link></p>
      <h1>{x.name}</h1>
      <dl class="facts">
        <dt>{t('teams.your_role')}</dt><dd>{roleName(x.role)}</dd>
        <dt>{t('teams.members')}</dt><dd>{x.member_count}</dd>
        <dt>{t('teams.time_zone')}</dt><dd>{x.time_zone}</dd>
        <dt>{t('team.require_2fa')}</dt><dd>{x.require_2fa ? t('team.yes') : t('team.no')}</dd>
      </dl>
      <p><Link href={`/oncall?team_id=${encodeURIComponent(x.id)}`}>{t('team.schedules_link')}</Link></p>
      <TeamSettings team={x} saved={changed} />
      <MembersTable team={x} me={me.data.id} members={members} changed={changed} />
      {atLeast(x.role, 'admin')
        ? <InvitesPanel team={x} />
        : <><h2>{t('invites.title')}</h2><p class="hint">{t('invites.admins_only')}</p></>}
      <h2>{t('team.leave_delete')}</h2>
      <FormError id="team-action-error" error={action.error} />
      <div class="actions">
        <button type="button" onClick={() => void leave()}>{t('team.leave')}</button>
        <button type="button" class="danger" {...roleGate(x.role === 'owner', 'team-delete-why')} onClick={() => void remove()}>{t('team.delete')}</button>
      </div>
      <p class="hint" id="team-delete-why">{x.role === 'owner' ? t('team.delete_hint') : t('team.delete_owners_only')}</p>
    </section>
  );
}
