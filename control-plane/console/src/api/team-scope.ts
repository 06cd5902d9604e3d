import { useEffect, useState } from 'preact/hooks';
import { navigate, useLocation } from '../router.js';

/*
 * The team switcher's choice (docs/console.md "Team switcher"): a team id, or null for personal.
 * Lists that take `?team_id=` (docs/api/teams.md "What a team is") show that team's resources, and
 * create forms send it as `team_id`. The choice is kept in localStorage and, on the pages that use
 * it, in the URL's `team_id`, so a team's list is a link: a URL's team wins over the kept one.
 */

const KEY = 'vantage.team';
const EVENT = 'vantage-team';
const TEAMS_EVENT = 'vantage-teams-changed';

/** The kept team id, or null (personal). */
export function keptTeam(): string | null {
  return localStorage.getItem(KEY) || null;
}

/** Keep `team_id` (null: personal) and tell the switcher and the pages that use the choice. */
export function chooseTeam(team_id: string | null): void {
  if (team_id === keptTeam()) return;
  if (team_id) localStorage.setItem(KEY, team_id); else localStorage.removeItem(KEY);
  dispatchEvent(new Event(EVENT));
}

/** Be told when the choice changes (returns the unsubscribe). */
export function onTeamChoice(fn: () => void): () => void {
  addEventListener(EVENT, fn);
  return () => removeEventListener(EVENT, fn);
}

/** Say that the caller's teams changed (created, joined, left, deleted), so the switcher reloads them. */
export function teamsChanged(): void { dispatchEvent(new Event(TEAMS_EVENT)); }
/** Be told when the caller's teams change (returns the unsubscribe). */
export function onTeamsChanged(fn: () => void): () => void {
  addEventListener(TEAMS_EVENT, fn);
  return () => removeEventListener(TEAMS_EVENT, fn);
}

/** Put `team_id` into the current URL's query (or take it out), replacing the history entry. */
function syncUrl(team_id: string | null): void {
  const q = new URLSearchParams(location.search);
  if ((q.get('team_id') || null) === team_id) return;
  if (team_id) q.set('team_id', team_id); else q.delete('team_id');
  navigate(`${location.pathname}${q.size ? `?${q}` : ''}`, true);
}

/**
 * The chosen team of a page whose lists take `?team_id=`: the URL's `team_id` (kept as the new
 * choice), else the kept one (then written into the URL); null for personal. Re-renders when the
 * switcher changes it.
 */
export function useTeamScope(): string | null {
  const { query } = useLocation();
  const [, bump] = useState(0);
  const inUrl = query.get('team_id') || null;
  useEffect(() => onTeamChoice(() => { bump((n) => n + 1); syncUrl(keptTeam()); }), []);
  useEffect(() => {
    if (inUrl) chooseTeam(inUrl); else syncUrl(keptTeam());
  }, [inUrl]);
  return inUrl ?? keptTeam();
}

/** `path` with `team_id` added to its query when a team is chosen. */
export function withTeam(path: string, team_id: string | null): string {
  if (!team_id) return path;
  return `${path}${path.includes('?') ? '&' : '?'}team_id=${encodeURIComponent(team_id)}`;
}

/** The `team_id` member of a create body: the chosen team, or nothing (personal). */
export function teamBody(team_id: string | null): { team_id?: string } {
  return team_id ? { team_id } : {};
}
