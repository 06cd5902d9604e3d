import { useEffect, useState } from 'preact/hooks';
import type { Team } from '@vantage/shared-protocol';
import { useApi } from '../api/use-api.js';
import { chooseTeam, keptTeam, onTeamChoice, onTeamsChanged } from '../api/team-scope.js';
import { t } from '../i18n/i18n.js';

/**
 * The header's team switcher: personal or one of the caller's teams (`GET /v1/teams`). Resource
 * lists then show that team's resources and create forms create under it (api/team-scope.ts). A
 * kept team the caller is no longer in falls back to personal.
 */
export function TeamSwitcher() {
  const teams = useApi<Team[]>('/v1/teams');
  const [chosen, setChosen] = useState(keptTeam());
  useEffect(() => onTeamChoice(() => setChosen(keptTeam())), []);
  useEffect(() => onTeamsChanged(teams.reload), [teams.reload]);
  useEffect(() => {
    if (teams.data && chosen && !teams.data.some((x) => x.id === chosen)) chooseTeam(null);
  }, [teams.data, chosen]);
  return (
    <div class="team-switcher">
      <label for="team-switcher">{t('teams.switcher')}</label>
      <select id="team-switcher" value={chosen ?? ''} aria-describedby="team-switcher-hint" onChange={(e) => chooseTeam((e.target as HTMLSelectElement).value || null)}>
        <option value="">{t('teams.switcher.personal')}</option>
        {(teams.data ?? []).map((x) => <option key={x.id} value={x.id}>{x.name}</option>)}
      </select>
      <span id="team-switcher-hint" class="sr-only">{t('teams.switcher.hint')}</span>
    </div>
  );
}
