import { useState } from 'preact/hooks';
import type { Team } from '@vantage/shared-protocol';
import { api, signedIn } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { teamsChanged } from '../../api/team-scope.js';
import { Field } from '../../components/Field.js';
import { Link } from '../../components/Link.js';
import { Refusal } from '../../components/Refusal.js';
import { roleName } from '../../components/team-roles.js';
import { t } from '../../i18n/i18n.js';

/** The `tit_…` token of the invitation e-mail's link (`/teams/accept#token=…`): in the fragment, so it never reaches a server log. */
function tokenOfLink(): string {
  return new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
}

/**
 * Accept a team invitation (POST /v1/teams/invites/accept, docs/api/teams.md "Invitations"): the
 * page the invitation e-mail links to, its token filled in, or where the token is pasted. The
 * account must have the invited, verified address; signed out, the page says to sign in or
 * register first and comes back here with the link.
 */
export default function AcceptInvitePage() {
  const [token, setToken] = useState(tokenOfLink);
  const [joined, setJoined] = useState<Team | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setJoined(await api<Team>('POST', '/v1/teams/invites/accept', { token: token.trim() }));
    teamsChanged();
  });
  const here = encodeURIComponent(`/teams/accept${location.hash}`);
  return (
    <section>
      <h1>{t('accept.title')}</h1>
      <p class="hint">{t('accept.intro')}</p>
      {!signedIn() ? (
        <p><Link href={`/login?next=${here}`}>{t('accept.login')}</Link> · <Link href={`/register?next=${here}`}>{t('accept.register')}</Link></p>
      ) : joined ? (
        <p role="status">{t('accept.joined', { role: roleName(joined.role) })} <Link href={`/teams/${joined.id}`}>{joined.name}</Link></p>
      ) : (
        <form onSubmit={submit} class="narrow">
          <Field id="accept-token" label={t('accept.token')}>
            <input id="accept-token" required maxLength={200} autoComplete="off" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
          </Field>
          <Refusal id="accept-error" error={error} />
          <button type="submit" class="primary" disabled={busy}>{t('accept.accept')}</button>
        </form>
      )}
    </section>
  );
}
