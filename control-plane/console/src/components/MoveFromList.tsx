import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { useAction } from '../api/use-action.js';
import { t } from '../i18n/i18n.js';
import { Fragment, type JSX } from 'preact';
import { MoveTeam, type MoveProps } from './MoveTeam.js';
import { FormError } from './states.js';

/** A listed resource that can change owner: its id, team (null: personal) and creator. */
type Owned = { id: string; team_id: string | null; user_id: string };

/**
 * Moving one row of a list page into or out of a team (docs/api/teams.md "Moving a resource"):
 * `button(row, name, locked)` is the row's "Move" button (`locked`: props that disable it, as for
 * a resource managed by a file); `panel` shows the chosen row's owner and the move (MoveTeam, one
 * at a time, focused when opened), read again from `GET {base}/{id}` after a move since it may
 * have left a list filtered by team; `changed` reloads the list. `control` renders the move where it
 * needs more than `team_id` (MoveTeam with those fields, in a component of its own).
 */
export function useMoveFromList<T extends Owned>(base: string, changed: () => void, control: (props: MoveProps<T>) => JSX.Element = (props) => <MoveTeam {...props} />) {
  const [row, setRow] = useState<{ item: T; name: string } | null>(null);
  const reread = useAction();
  const panelRef = useRef<HTMLDivElement>(null);
  const openId = row?.item.id;
  useEffect(() => { if (openId) panelRef.current?.focus(); }, [openId]);
  const button = (item: T, name: string, locked: object = {}) => (
    <button type="button" {...locked} aria-label={t('move.open_named', { name })} aria-expanded={openId === item.id} onClick={() => setRow({ item, name })}>{t('move.open')}</button>
  );
  if (!row) return { button, panel: null };
  const path = `${base}/${encodeURIComponent(row.item.id)}`;
  const panel = (
    <div class="move-panel" ref={panelRef} tabIndex={-1}>
      <Fragment key={row.item.id}>{control({ resource: row.item, path, title: t('move.title_named', { name: row.name }), moved: () => void reread.run(async () => {
        setRow({ item: await api<T>('GET', path), name: row.name });
        changed();
      }) })}</Fragment>
      <FormError id="move-reread-error" error={reread.error} />
      <button type="button" onClick={() => setRow(null)}>{t('move.close')}</button>
    </div>
  );
  return { button, panel };
}
