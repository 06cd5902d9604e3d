import type { MaintenanceWindow } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useMarks } from '../../api/use-marks.js';
import { AlertingTabs } from '../../components/AlertingTabs.js';
import { Listed } from '../../components/Listed.js';
import { lockedBy, ManagedBadge, ManagedNote } from '../../components/managed/Managed.js';
import { MonitorName } from '../../components/MonitorSelect.js';
import { FormError } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { MaintenanceCalendar } from './MaintenanceCalendar.js';
import { MaintenanceForm } from './MaintenanceForm.js';
import { useMoveFromList } from '../../components/MoveFromList.js';
import { useTeamScope, withTeam } from '../../api/team-scope.js';

/**
 * Maintenance windows (/v1/maintenance-windows): a four-week calendar of their occurrences, the
 * list with scope and recurrence, delete, its owner and a move into or out of a team
 * (docs/api/teams.md "Moving a resource"), and a form for a new one (docs/api/alerting.md
 * "Maintenance windows"); one applied from a file shows it and is read-only here
 * (docs/api/as-code.md "Marks").
 */
export default function MaintenancePage() {
  const windows = useApi<{ items: MaintenanceWindow[] }>(withTeam('/v1/maintenance-windows', useTeamScope()));
  const action = useAction(windows.reload);
  const markOf = useMarks('maintenance_window');
  const move = useMoveFromList<MaintenanceWindow>('/v1/maintenance-windows', windows.reload);
  const scope = (w: MaintenanceWindow) => (w.scope_type === 'all' ? t('silences.all_monitors')
    : w.scope_type === 'monitor' ? w.scope_ids.map((id) => <MonitorName key={id} monitor_id={id} />)
    : `${t(`maintenance.scope.${w.scope_type}`)}: ${w.scope_ids.join(', ')}`);
  return (
    <section>
      <h1>{t('maintenance.title')}</h1>
      <AlertingTabs here="/alerts/maintenance" />
      <FormError id="maintenance-error" error={action.error} />
      <Listed loaded={windows} items={(d) => d.items} empty={t('maintenance.empty')}>
        {(d) => (
          <>
            <MaintenanceCalendar windows={d.items} />
            <ManagedNote marks={d.items.map((w) => markOf(w.id))} />
            <table>
              <thead><tr>
                <th scope="col">{t('maintenance.window_title')}</th><th scope="col">{t('maintenance.scope')}</th><th scope="col">{t('alerting.starts_at')}</th>
                <th scope="col">{t('alerting.ends_at')}</th><th scope="col">{t('maintenance.recurrence')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
              </tr></thead>
              <tbody>{d.items.map((w) => (
                <tr key={w.id}>
                  <td>{w.title ?? t('maintenance.untitled')} <ManagedBadge mark={markOf(w.id)} /></td><td>{scope(w)}</td><td>{formatTime(w.starts_at)}</td><td>{formatTime(w.ends_at)}</td>
                  <td>{t(`maintenance.recurrence.${w.recurrence}`)}</td>
                  <td class="actions">
                    {move.button(w, w.title ?? t('maintenance.untitled'), lockedBy(markOf(w.id)))}
                    <button type="button" class="danger" {...lockedBy(markOf(w.id))} onClick={() => void action.call('DELETE', `/v1/maintenance-windows/${encodeURIComponent(w.id)}`)}>{t('channels.delete')}</button>
                  </td>
                </tr>
              ))}</tbody>
            </table>
          </>
        )}
      </Listed>
      {move.panel}
      <MaintenanceForm created={windows.reload} />
    </section>
  );
}
