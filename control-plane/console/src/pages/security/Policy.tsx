import type { SecuritySummary } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';

/**
 * The account's two-factor policy (GET/PATCH /v1/account/security): TOTP, passkeys and recovery
 * codes counted, the account's own requirement (a switch) and the teams that require it.
 */
export function Policy({ summary, changed }: { summary: SecuritySummary; changed: () => void }) {
  const action = useAction();
  const set = (require_2fa: boolean) => action.run(async () => { await api('PATCH', '/v1/account/security', { require_2fa }); changed(); });
  return (
    <>
      {summary.setup_required && <p class="state error" role="alert">{t('security.setup_required')}</p>}
      <dl class="facts">
        <dt>{t('security.totp')}</dt><dd>{summary.totp_enabled ? t('profile.on') : t('profile.off')}</dd>
        <dt>{t('security.passkeys')}</dt><dd>{summary.passkeys}</dd>
        <dt>{t('security.codes_left')}</dt><dd>{summary.recovery_codes_left}</dd>
        <dt>{t('security.teams_require')}</dt><dd>{summary.teams_requiring_2fa.map((x) => x.name).join(', ') || t('security.none')}</dd>
      </dl>
      <label class="check">
        <input type="checkbox" checked={summary.require_2fa} onChange={(e) => void set((e.target as HTMLInputElement).checked)} />
        {t('security.require')}
      </label>
      <p class="hint">{t('security.require_hint')}</p>
      <FormError id="policy-error" error={action.error} />
    </>
  );
}
