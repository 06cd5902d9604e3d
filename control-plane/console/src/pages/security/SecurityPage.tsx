import type { SecuritySummary } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { ErrorState, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { Identities } from './Identities.js';
import { Passkeys } from './Passkeys.js';
import { Policy } from './Policy.js';
import { TwoFactor } from './TwoFactor.js';

/** Account security: the two-factor policy, TOTP and recovery codes, passkeys, linked sign-in providers, and where to approve a QR-code login. */
export default function SecurityPage() {
  const summary = useApi<SecuritySummary>('/v1/account/security');
  if (summary.error) return <ErrorState error={summary.error} retry={summary.reload} />;
  if (!summary.data) return <Loading />;
  return (
    <section>
      <h1>{t('security.title')}</h1>
      <Policy summary={summary.data} changed={summary.reload} />
      <TwoFactor summary={summary.data} changed={summary.reload} />
      <Passkeys changed={summary.reload} />
      <Identities />
      <h2>{t('device.title')}</h2>
      <p>{t('security.device_hint')} <Link href="/device">{t('security.device_link')}</Link></p>
    </section>
  );
}
