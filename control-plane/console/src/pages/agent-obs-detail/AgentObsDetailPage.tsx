import type { AgentObsMonitor } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { Link } from '../../components/Link.js';
import { formatUsd } from '../../components/money.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { AgentObsTabs, CostCell, StatusBadge } from '../agent-obs/parts.js';
import { ChecksTable } from './ChecksTable.js';

/**
 * One agent-obs monitor (GET /v1/agent-obs/monitors/{id}): its endpoint, period, state, cost this
 * month against its budget; pause, resume, edit, delete, its live events; then its check records
 * (docs/api/agent-obs.md).
 */
export default function AgentObsDetailPage({ params }: { params: Record<string, string> }) {
  const path = `/v1/agent-obs/monitors/${encodeURIComponent(params.id!)}`;
  const monitor = useApi<AgentObsMonitor>(path);
  const action = useAction(monitor.reload);
  if (monitor.error) return <ErrorState error={monitor.error} retry={monitor.reload} />;
  if (!monitor.data) return <Loading />;
  const m = monitor.data;
  const remove = () => action.run(async () => {
    if (!confirm(t('ao.delete_confirm', { name: m.agent_name }))) return;
    await api('DELETE', path);
    navigate('/agent-obs');
  });
  const threshold = m.failure_threshold as { latency?: number; status_codes?: string };
  return (
    <section>
      <h1>{m.agent_name}</h1>
      <AgentObsTabs here="" />
      <dl class="facts">
        <dt>{t('ao.status')}</dt><dd><StatusBadge status={m.status} />{m.paused_at && <> {t('ao.since', { at: formatTime(m.paused_at) })}</>}</dd>
        <dt>{t('ao.type')}</dt><dd>{t(`ao.type.${m.type}`)}</dd>
        <dt>{t('ao.endpoint_url')}</dt><dd><code>{m.endpoint_url}</code></dd>
        <dt>{t('ao.frequency_seconds')}</dt><dd>{m.frequency_seconds}</dd>
        {threshold.latency !== undefined && <><dt>{t('ao.latency_limit')}</dt><dd>{threshold.latency}</dd></>}
        <dt>{t('ao.status_codes')}</dt><dd>{threshold.status_codes ?? '200-299'}</dd>
        <dt>{t('ao.cost_month')}</dt><dd><CostCell monitor={m} /></dd>
        <dt>{t('ao.budget_per_check_usd')}</dt><dd>{m.budget_per_check_usd === null ? t('ao.none') : formatUsd(m.budget_per_check_usd)}</dd>
        {m.step_name && <><dt>{t('ao.step_name')}</dt><dd>{m.step_name}</dd></>}
        <dt>{t('ao.created')}</dt><dd>{formatTime(m.created_at)}</dd>
      </dl>
      {m.status === 'exceeded_budget' && <p class="hint">{t('ao.exceeded_hint')}</p>}
      <p class="actions">
        {m.status === 'active'
          ? <button type="button" onClick={() => void action.call('POST', `${path}/pause`)}>{t('ao.pause')}</button>
          : <button type="button" onClick={() => void action.call('POST', `${path}/resume`)}>{t('ao.resume')}</button>}
        <Link href={`/agent-obs/${m.id}/edit`} class="button">{t('ao.edit')}</Link>
        <Link href={`/agent-obs/events?monitor_id=${m.id}`} class="button">{t('ao.live_events')}</Link>
        <button type="button" class="danger" onClick={() => void remove()}>{t('ao.delete')}</button>
      </p>
      <FormError id="ao-detail-error" error={action.error} />
      <h2>{t('ao.checks')}</h2>
      <ChecksTable path={`${path}/checks`} />
    </section>
  );
}
