import { useState } from 'preact/hooks';
import type { DeviceRequest } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { Field } from '../../components/Field.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';

/**
 * Approve a QR-code login (docs/api/accounts.md "QR-code login"): the waiting browser's QR code
 * opens /device?user_code=XXXX-XXXX here; the page shows when and from where the request came
 * (GET /v1/account/device/{user_code}) and approves or denies it. Without a code, a form asks for
 * the one shown on the waiting screen.
 */
export default function DeviceLoginPage() {
  const { query } = useLocation();
  const code = query.get('user_code')?.trim().toUpperCase() ?? '';
  const [typed, setTyped] = useState('');
  const [decided, setDecided] = useState<'approved' | 'denied' | null>(null);
  const request = useApi<DeviceRequest>(code && !decided ? `/v1/account/device/${encodeURIComponent(code)}` : null);
  const action = useAction();
  const decide = (verb: 'approve' | 'deny') => action.run(async () => {
    const r = await api<{ status: 'approved' | 'denied' }>('POST', `/v1/account/device/${encodeURIComponent(code)}/${verb}`);
    setDecided(r.status);
  });
  let body;
  if (!code) body = null;
  else if (decided) body = <p role="status" class="state">{t(`device.${decided}`)}</p>;
  else if (request.error) body = <ErrorState error={request.error} />;
  else if (!request.data) body = <Loading />;
  else body = (
    <>
      <dl class="facts">
        <dt>{t('device.code')}</dt><dd><code>{request.data.user_code}</code></dd>
        <dt>{t('device.requested')}</dt><dd>{formatTime(request.data.created_at)}</dd>
        <dt>{t('device.from')}</dt><dd>{request.data.requester_ip ?? ''}</dd>
        <dt>{t('device.browser')}</dt><dd class="wrap">{request.data.user_agent ?? ''}</dd>
        <dt>{t('tokens.expires')}</dt><dd>{formatTime(request.data.expires_at)}</dd>
      </dl>
      <p>{t('device.question')}</p>
      <div class="actions">
        <button type="button" class="primary" onClick={() => void decide('approve')}>{t('device.approve')}</button>
        <button type="button" class="danger" onClick={() => void decide('deny')}>{t('device.deny')}</button>
      </div>
      <FormError id="device-error" error={action.error} />
    </>
  );
  return (
    <section>
      <h1>{t('device.title')}</h1>
      <p class="hint">{t('device.intro')}</p>
      <form class="inline" onSubmit={(e) => { e.preventDefault(); setDecided(null); navigate(`/device?user_code=${encodeURIComponent(typed.trim().toUpperCase())}`, true); }}>
        <Field id="device-code" label={t('device.code')}>
          <input id="device-code" required maxLength={9} autoComplete="off" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit">{t('device.look_up')}</button>
      </form>
      {body}
    </section>
  );
}
