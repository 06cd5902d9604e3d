import { useState } from 'preact/hooks';
import type { AsCodeMark, Monitor } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { Link } from '../../components/Link.js';
import { lockedBy } from '../../components/managed/Managed.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';

/**
 * Edit, pause or resume, run now and delete (docs/api/monitors.md); `changed` reloads the page's
 * data. A monitor applied from a file (`mark`) cannot be edited or deleted here (docs/api/as-code.md "Marks").
 */
export function MonitorActions({ monitor, mark, changed }: { monitor: Monitor; mark: AsCodeMark | null; changed: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [runTask, setRunTask] = useState<string | null>(null);
  const base = `/v1/monitors/${encodeURIComponent(monitor.id)}`;
  async function act(fn: () => Promise<void>) {
    setError(null); setRunTask(null);
    try { await fn(); } catch (err) { setError(err); }
  }
  return (
    <div class="actions">
      {mark ? <button type="button" {...lockedBy(mark)}>{t('detail.edit')}</button> : <Link href={`/monitors/${monitor.id}/edit`} class="button">{t('detail.edit')}</Link>}
      {monitor.status === 'active'
        ? <button type="button" onClick={() => void act(async () => { await api('POST', `${base}/pause`); changed(); })}>{t('detail.pause')}</button>
        : <button type="button" onClick={() => void act(async () => { await api('POST', `${base}/resume`); changed(); })}>{t('detail.resume')}</button>}
      <button type="button" onClick={() => void act(async () => { setRunTask((await api<{ task_id: string }>('POST', `${base}/run`)).task_id); })}>{t('detail.run')}</button>
      <button type="button" class="danger" {...lockedBy(mark)} onClick={() => void act(async () => {
        if (!confirm(t('detail.delete_confirm'))) return;
        await api('DELETE', base);
        navigate('/monitors');
      })}>{t('detail.delete')}</button>
      {runTask && <span role="status">{t('detail.run_queued')} <Link href={`/probes/${runTask}`}>{t('detail.run_results')}</Link></span>}
      <FormError id="actions-error" error={error} />
    </div>
  );
}
