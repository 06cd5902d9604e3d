import { useState } from 'preact/hooks';
import type { CreatedTeamInvite, Team, TeamInvite } from '@vantage/shared-protocol';
import { INVITE_ROLES } from '../../api/vocabulary.js';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { Listed } from '../../components/Listed.js';
import { Refusal } from '../../components/Refusal.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { FormError } from '../../components/states.js';
import { roleName, type TeamRole } from '../../components/team-roles.js';
import { formatTime, t } from '../../i18n/i18n.js';

type InviteRole = Exclude<TeamRole, 'owner'>;

/**
 * A team's invitations, for admins and owners (docs/api/teams.md "Invitations"): invite an e-mail
 * address with a role (POST /v1/teams/{id}/invites; the `tit_…` token is e-mailed and shown here
 * once, with the console's accept link), the invitations newest first with their status, revoke a
 * pending one (DELETE …/invites/{invite_id}).
 */
export function InvitesPanel({ team }: { team: Team }) {
  const path = `/v1/teams/${encodeURIComponent(team.id)}/invites`;
  const invites = useApi<TeamInvite[]>(path);
  const action = useAction(invites.reload);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<InviteRole>('member');
  const [made, setMade] = useState<CreatedTeamInvite | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setMade(null);
    setMade(await api<CreatedTeamInvite>('POST', path, { email, role }));
    setEmail('');
    invites.reload();
  });
  return (
    <>
      <h2>{t('invites.title')}</h2>
      <form onSubmit={submit} class="narrow">
        <div class="inline">
          <Field id="invite-email" label={t('invites.email')}>
            <input id="invite-email" type="email" required maxLength={254} value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          </Field>
          <Field id="invite-role" label={t('invites.role')}>
            <select id="invite-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as InviteRole)}>
              {INVITE_ROLES.map((r) => <option key={r} value={r}>{roleName(r)}</option>)}
            </select>
          </Field>
        </div>
        <Refusal id="invite-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('invites.send')}</button>
      </form>
      {made && (
        <>
          <p role="status">{t(`invites.sent.${made.email_delivery}`, { email: made.email })}</p>
          <ShownOnce key={made.token} intro={t('invites.link_once')} value={`${location.origin}/teams/accept#token=${made.token}`} copyLabel={t('invites.copy')} testId="invite-link" />
        </>
      )}
      <FormError id="invites-error" error={action.error} />
      <Listed loaded={invites} items={(d) => d} empty={t('invites.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('invites.email')}</th><th scope="col">{t('invites.role')}</th><th scope="col">{t('invites.status')}</th>
              <th scope="col">{t('invites.expires')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
            </tr></thead>
            <tbody>{d.map((i) => (
              <tr key={i.id}>
                <td>{i.email}</td><td>{roleName(i.role)}</td><td>{t(`invites.status.${i.status}`)}</td>
                <td>{i.status === 'accepted' ? formatTime(i.accepted_at) : formatTime(i.expires_at)}</td>
                <td>{i.status === 'pending' && (
                  <button type="button" class="danger" aria-label={t('invites.revoke_named', { email: i.email })}
                    onClick={() => void action.call('DELETE', `${path}/${encodeURIComponent(i.id)}`)}>{t('invites.revoke')}</button>
                )}</td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
    </>
  );
}
