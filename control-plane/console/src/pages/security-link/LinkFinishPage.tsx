import type { OAuthIdentity } from '@vantage/shared-protocol';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure } from '../../api/client.js';
import { Link } from '../../components/Link.js';
import { Refusal } from '../../components/Refusal.js';
import { Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { takeStartedLink } from '../security/link-flow.js';

/** What the provider sent back, read from the URL fragment (`code`, `state`, `iss`, or `error`), which is then removed from the address bar and history. */
function takeFragment(): URLSearchParams {
  const carried = new URLSearchParams(location.hash.slice(1));
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  return carried;
}

type Outcome =
  | { kind: 'working' }
  | { kind: 'linked'; identity: OAuthIdentity }
  | { kind: 'failed'; status: number; code: ApiFailure['code']; message: string; details?: Record<string, unknown> | undefined }
  | { kind: 'message'; key: 'link.refused' | 'link.nothing' | 'link.not_started'; error?: string };

/** The outcome, also kept in this history entry, so the page shows it again when it is drawn anew (a language switch) with the fragment gone. */
function kept(): Outcome | null {
  return (history.state as { link_outcome?: Outcome } | null)?.link_outcome ?? null;
}

/** Complete the flow the fragment carries, or say why not; nothing is sent unless this tab started it. */
async function finish(): Promise<Outcome> {
  const provider = new URLSearchParams(location.search).get('provider') ?? '';
  const carried = takeFragment();
  const state = carried.get('state') ?? '';
  const started = takeStartedLink(provider, state);
  const error = carried.get('error');
  if (error !== null) return { kind: 'message', key: 'link.refused', error };
  const code = carried.get('code');
  if (!provider || !state || code === null) return { kind: 'message', key: 'link.nothing' };
  if (!started) return { kind: 'message', key: 'link.not_started' };
  const iss = carried.get('iss');
  try {
    return { kind: 'linked', identity: await api<OAuthIdentity>('POST', `/v1/account/identities/${encodeURIComponent(provider)}/callback`, { code, state, ...(iss !== null ? { iss } : {}) }) };
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    return { kind: 'failed', status: err.status, code: err.code, message: err.message, details: err.details };
  }
}

/**
 * Finish linking a sign-in provider (docs/api/accounts.md "Single sign-on (OIDC, GitHub)"): the
 * API's redirect URI sends the browser of a link flow here, `?provider=` in the query and the
 * provider's answer in the fragment. A flow this tab started is completed with
 * POST /v1/account/identities/{provider}/callback and the session; a provider's refusal, a flow
 * started elsewhere or a missing answer is said, and nothing is sent.
 */
export default function LinkFinishPage() {
  const [outcome, setOutcome] = useState<Outcome>(() => kept() ?? { kind: 'working' });
  useEffect(() => {
    if (kept()) return;
    void finish().then((done) => {
      history.replaceState({ link_outcome: done }, '');
      setOutcome(done);
    }, (err: unknown) => setOutcome({ kind: 'failed', status: 0, code: 'NETWORK', message: String((err as Error)?.message ?? err) }));
  }, []);
  return (
    <section>
      <h1>{t('link.title')}</h1>
      {outcome.kind === 'working' && <Loading />}
      {outcome.kind === 'linked' && <p role="status">{t('link.done', { name: outcome.identity.provider_name ?? outcome.identity.provider })}</p>}
      {outcome.kind === 'failed' && <Refusal id="link-error" error={new ApiFailure(outcome.status, outcome.code, outcome.message, outcome.details)} />}
      {outcome.kind === 'message' && <p role="alert" class="form-error">{t(outcome.key, { error: outcome.error ?? '' })}</p>}
      {outcome.kind !== 'working' && <p><Link href="/security">{t('link.back')}</Link></p>}
    </section>
  );
}
