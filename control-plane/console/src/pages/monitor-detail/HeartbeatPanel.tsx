import { useState } from 'preact/hooks';
import type { Monitor } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';

/**
 * A heartbeat monitor's check-in token: its preview, and a rotate button
 * (POST /v1/monitors/{id}/heartbeat/rotate, docs/api/monitors.md "Heartbeat tokens") that shows
 * the new check-in URL once; the old URL stops working at once.
 */
export function HeartbeatPanel({ monitor, changed }: { monitor: Monitor; changed: () => void }) {
  const [url, setUrl] = useState<string | null>(null);
  const rotate = useSubmit(async () => {
    if (!confirm(t('heartbeat.rotate_confirm'))) return;
    setUrl((await api<{ token: string; url: string }>('POST', `/v1/monitors/${encodeURIComponent(monitor.id)}/heartbeat/rotate`)).url);
    changed();
  });
  return (
    <>
      <h2>{t('heartbeat.title')}</h2>
      <p>{t('heartbeat.preview')} <code data-testid="heartbeat-preview">{monitor.heartbeat?.token_preview ?? ''}</code></p>
      <form onSubmit={rotate.submit}>
        <button type="submit" disabled={rotate.busy}>{t('heartbeat.rotate')}</button>
      </form>
      <FormError id="heartbeat-error" error={rotate.error} />
      {url && <ShownOnce key={url} intro={t('heartbeat.rotated_once')} value={url} copyLabel={t('form.heartbeat_copy')} testId="heartbeat-rotated-url" />}
    </>
  );
}
