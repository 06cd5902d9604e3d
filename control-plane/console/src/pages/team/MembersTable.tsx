import { useState } from 'preact/hooks';
import type { Team, TeamMember } from '@vantage/shared-protocol';
import { ROLES } from '../../api/vocabulary.js';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import type { Loaded } from '../../api/use-api.js';
import { Listed } from '../../components/Listed.js';
import { FormError } from '../../components/states.js';
import { atLeast, roleGate, roleName, type TeamRole } from '../../components/team-roles.js';
import { formatTime, t } from '../../i18n/i18n.js';

/**
 * Whether the caller (role `mine`) may change or remove a member holding `theirs`, per
 * docs/api/teams.md "Roles": admins and owners act on admins, members and viewers; only owners
 * act on owners (and make owners).
 */
function mayActOn(mine: TeamRole, theirs: TeamRole): boolean {
  return atLeast(mine, 'admin') && (theirs !== 'owner' || mine === 'owner');
}

/** A team's members (GET /v1/teams/{id}/members), owners first: change a role (PATCH …/members/{user_id}), remove (DELETE). */
export function MembersTable({ team, me, members, changed }: { team: Team; me: string; members: Loaded<TeamMember[]>; changed: () => void }) {
  const action = useAction(changed);
  return (
    <>
      <h2>{t('members.title')}</h2>
      <FormError id="members-error" error={action.error} />
      <p class="hint" id="members-why">{atLeast(team.role, 'admin') ? t('members.owner_rule') : t('members.admins_only')}</p>
      <Listed loaded={members} items={(d) => d} empty={t('members.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('members.member')}</th><th scope="col">{t('members.role')}</th><th scope="col">{t('members.joined')}</th>
              <th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
            </tr></thead>
            <tbody>{d.map((m) => <MemberRow key={`${m.user_id}:${m.role}`} team={team} member={m} self={m.user_id === me} action={action} changed={changed} />)}</tbody>
          </table>
        )}
      </Listed>
    </>
  );
}

/** One member: its role (a select and a change button) and remove, disabled with the reason when the caller's role may not. */
function MemberRow({ team, member, self, action, changed }: { team: Team; member: TeamMember; self: boolean; action: ReturnType<typeof useAction>; changed: () => void }) {
  const [role, setRole] = useState<TeamRole>(member.role);
  const may = mayActOn(team.role, member.role);
  const who = member.display_name ?? member.email;
  const path = `/v1/teams/${encodeURIComponent(team.id)}/members/${encodeURIComponent(member.user_id)}`;
  // Only an owner offers the owner role (docs/api/teams.md "Roles").
  const offered = ROLES.filter((r) => r !== 'owner' || team.role === 'owner');
  return (
    <tr data-member={member.user_id}>
      <td>{who}{member.display_name && <span class="hint"> {member.email}</span>}{self && <span class="badge">{t('members.you')}</span>}</td>
      <td>
        <label class="sr-only" for={`role-${member.user_id}`}>{t('members.role_of', { name: who })}</label>
        <select id={`role-${member.user_id}`} value={role} {...roleGate(may, 'members-why')} onChange={(e) => setRole((e.target as HTMLSelectElement).value as TeamRole)}>
          {(may ? offered : [member.role]).map((r) => <option key={r} value={r}>{roleName(r)}</option>)}
        </select>
      </td>
      <td>{formatTime(member.joined_at)}</td>
      <td class="actions">
        <button type="button" {...roleGate(may, 'members-why')} disabled={!may || role === member.role} aria-label={t('members.change_named', { name: who })}
          onClick={() => void action.call('PATCH', path, { role })}>{t('members.change')}</button>
        {!self && (
          <button type="button" class="danger" {...roleGate(may, 'members-why')} aria-label={t('members.remove_named', { name: who })}
            onClick={() => void action.run(async () => {
              if (!confirm(t('members.remove_confirm', { name: who }))) return;
              await api('DELETE', path);
              changed();
            })}>{t('members.remove')}</button>
        )}
      </td>
    </tr>
  );
}
