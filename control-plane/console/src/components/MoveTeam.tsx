import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Profile, Team } from '@vantage/shared-protocol';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { useSubmit } from '../api/use-submit.js';
import { t } from '../i18n/i18n.js';
import { Field } from './Field.js';
import { Refusal } from './Refusal.js';
import { ErrorState, Loading } from './states.js';
import { atLeast, roleGate, roleName } from './team-roles.js';

const PERSONAL = 'personal';

/** What a move control gets: the resource (its team, null: personal, and creator), its API path, what to do once moved, and an optional heading. */
export interface MoveProps<T> { resource: T; path: string; moved: () => void; title?: string }

/**
 * Who owns a resource (its creator alone, or a team) and moving it (docs/api/teams.md "Moving a
 * resource": `PATCH path {team_id}`): into one of the caller's teams where it is member or above,
 * or out of its team into its creator's personal resources (the creator only). Where the caller
 * may not move it (a viewer of its team), the control is disabled with the reason; the API decides
 * anyway (403, 404 shown as it says). `moved` reloads the resource. `title` (default "Owner")
 * names the resource where the page shows more than one. `extra` adds fields to the move and
 * their values to its PATCH, for what must be the new owner's in the same request (a policy's
 * monitor and channels, docs/api/alerting.md "Teams").
 */
export function MoveTeam({ resource, path, moved, title, extra }: MoveProps<{ team_id: string | null; user_id: string }> & { extra?: { fields: ComponentChildren; body: Record<string, unknown> } }) {
  const teams = useApi<Team[]>('/v1/teams');
  const me = useApi<Profile>('/v1/account/profile');
  const [to, setTo] = useState('');
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => setTo(''), [resource.team_id]);
  const mine = teams.data ?? [];
  const here = mine.find((x) => x.id === resource.team_id);
  const creator = me.data?.id === resource.user_id;
  const destinations = [
    ...(resource.team_id && creator ? [{ value: PERSONAL, label: t('move.personal') }] : []),
    ...mine.filter((x) => x.id !== resource.team_id && atLeast(x.role, 'member')).map((x) => ({ value: x.id, label: t('move.team', { name: x.name }) })),
  ];
  const chosen = destinations.some((d) => d.value === to) ? to : destinations[0]?.value ?? '';
  const { busy, error, submit } = useSubmit(async () => {
    setDone(null);
    await api('PATCH', path, { ...extra?.body, team_id: chosen === PERSONAL ? null : chosen });
    setDone(t('move.moved', { owner: destinations.find((d) => d.value === chosen)!.label }));
    moved();
  });
  if (teams.error || me.error) return <ErrorState error={teams.error ?? me.error} retry={() => { teams.reload(); me.reload(); }} />;
  if (!teams.data || !me.data) return <Loading />;
  const allowed = resource.team_id === null ? creator : here !== undefined && atLeast(here.role, 'member');
  const why = !allowed && here ? t('move.role', { team: here.name, role: roleName(here.role) })
    : destinations.length === 0 ? t('move.nowhere') : null;
  const owner = resource.team_id === null ? (creator ? t('move.personal_yours') : t('move.personal')) : t('move.team', { name: here?.name ?? resource.team_id });
  return (
    <>
      <h2>{title ?? t('move.title')}</h2>
      <p data-testid="owner">{t('move.owned_by', { owner })}</p>
      <form onSubmit={submit} class={extra ? 'narrow' : 'inline'}>
        <Field id="move-to" label={t('move.to')}>
          <select id="move-to" value={chosen} {...roleGate(allowed && destinations.length > 0, 'move-why')} onChange={(e) => setTo((e.target as HTMLSelectElement).value)}>
            {destinations.map((d) => <option key={d.value} value={d.value}>{d.label}</option>)}
          </select>
        </Field>
        {extra && <div class="move-extra" inert={!allowed || destinations.length === 0 ? true : undefined}>{extra.fields}</div>}
        <button type="submit" disabled={busy || !allowed || destinations.length === 0} aria-describedby={why ? 'move-why' : undefined}>{t('move.submit')}</button>
      </form>
      {why && <p class="hint" id="move-why">{why}</p>}
      {allowed && resource.team_id && !creator && <p class="hint">{t('move.creator_only')}</p>}
      {done && <p role="status">{done}</p>}
      <Refusal id="move-error" error={error} />
    </>
  );
}
