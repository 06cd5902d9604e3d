import type { OncallOverride, OncallSchedule, Team, TeamMember } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { atLeast, roleGate } from '../../components/team-roles.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { OnCallTimeline } from './OnCallTimeline.js';
import { OverridesPanel } from './OverridesPanel.js';
import { RotationsPanel } from './RotationsPanel.js';
import { ScheduleSettings } from './ScheduleSettings.js';

/**
 * One on-call schedule (docs/api/teams.md "On-call schedules"): who is on call now and the
 * handoffs of the coming 14 days, its name and time zone, its rotations and overrides, delete.
 * Members of its team and up change it; a viewer sees the controls disabled with the reason.
 */
export default function SchedulePage({ params }: { params: Record<string, string> }) {
  const path = `/v1/oncall/schedules/${encodeURIComponent(params.id!)}`;
  const schedule = useApi<OncallSchedule>(path);
  const team_path = schedule.data ? `/v1/teams/${encodeURIComponent(schedule.data.team_id)}` : null;
  const team = useApi<Team>(team_path);
  const members = useApi<TeamMember[]>(team_path && `${team_path}/members`);
  const overrides = useApi<{ items: OncallOverride[] }>(path + '/overrides');
  const action = useAction();
  const failed = schedule.error ?? team.error ?? members.error;
  if (failed) return <ErrorState error={failed} retry={() => { schedule.reload(); team.reload(); members.reload(); }} />;
  if (!schedule.data || !team.data || !members.data) return <Loading />;
  const s = schedule.data;
  const canWrite = atLeast(team.data.role, 'member');
  const nameOf = (id: string) => { const m = members.data!.find((x) => x.user_id === id); return m ? (m.display_name ?? m.email) : id; };
  const choices = members.data.map((m) => ({ value: m.user_id, label: m.display_name ?? m.email }));
  const remove = () => action.run(async () => {
    if (!confirm(t('schedule.delete_confirm', { name: s.name }))) return;
    await api('DELETE', path);
    navigate('/oncall');
  });
  const changed = () => { schedule.reload(); overrides.reload(); };
  return (
    <section>
      <p><Link href="/oncall">{t('schedule.back')}</Link></p>
      <h1>{s.name}</h1>
      <dl class="facts">
        <dt>{t('oncall.team')}</dt><dd><Link href={`/teams/${s.team_id}`}>{team.data.name}</Link></dd>
        <dt>{t('oncall.time_zone')}</dt><dd>{s.time_zone}</dd>
      </dl>
      <p class="hint" id="schedule-why">{canWrite ? t('schedule.members_change') : t('schedule.viewer')}</p>
      <h2>{t('oncall.who_title')}</h2>
      {overrides.data
        ? <OnCallTimeline schedule_id={s.id} overrides={overrides.data.items} nameOf={nameOf} version={`${s.updated_at}:${overrides.data.items.map((o) => o.id).join(',')}`} />
        : <Loading />}
      <RotationsPanel schedule={s} members={choices} nameOf={nameOf} canWrite={canWrite} saved={changed} />
      <OverridesPanel schedule={s} overrides={overrides} members={choices} nameOf={nameOf} canWrite={canWrite} changed={changed} />
      <ScheduleSettings schedule={s} canWrite={canWrite} saved={schedule.reload} />
      <FormError id="schedule-error" error={action.error} />
      <button type="button" class="danger" {...roleGate(canWrite, 'schedule-why')} onClick={() => void remove()}>{t('schedule.delete')}</button>
    </section>
  );
}
