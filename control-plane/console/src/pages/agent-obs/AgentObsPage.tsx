import type { AgentObsMonitor } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { AgentObsTabs, CostCell, StatusBadge } from './parts.js';

/**
 * Agent observability (GET /v1/agent-obs/monitors): each monitor's name, kind, endpoint, state and
 * cost this month against its monthly budget; pause or resume (docs/api/agent-obs.md "States");
 * links to a monitor's checks, the form for a new one and the live event stream.
 */
export default function AgentObsPage() {
  const monitors = useApi<AgentObsMonitor[]>('/v1/agent-obs/monitors');
  const action = useAction(monitors.reload);
  return (
    <section>
      <div class="title-row">
        <h1>{t('ao.title')}</h1>
        <Link href="/agent-obs/new" class="button primary">{t('ao.new')}</Link>
      </div>
      <AgentObsTabs here="/agent-obs" />
      <p class="hint">{t('ao.intro')}</p>
      <FormError id="ao-error" error={action.error} />
      <Listed loaded={monitors} items={(d) => d} empty={t('ao.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('ao.agent_name')}</th><th scope="col">{t('ao.type')}</th><th scope="col">{t('ao.endpoint_url')}</th>
              <th scope="col">{t('ao.status')}</th><th scope="col">{t('ao.cost_month')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
            </tr></thead>
            <tbody>{d.map((m) => (
              <tr key={m.id}>
                <td><Link href={`/agent-obs/${m.id}`}>{m.agent_name}</Link>{m.step_name && <p class="hint">{m.step_name}</p>}</td>
                <td>{t(`ao.type.${m.type}`)}</td>
                <td class="clip"><code>{m.endpoint_url}</code></td>
                <td><StatusBadge status={m.status} /></td>
                <td><CostCell monitor={m} /></td>
                <td class="actions">
                  {m.status === 'active'
                    ? <button type="button" aria-label={t('ao.pause_named', { name: m.agent_name })} onClick={() => void action.call('POST', `/v1/agent-obs/monitors/${encodeURIComponent(m.id)}/pause`)}>{t('ao.pause')}</button>
                    : <button type="button" aria-label={t('ao.resume_named', { name: m.agent_name })} onClick={() => void action.call('POST', `/v1/agent-obs/monitors/${encodeURIComponent(m.id)}/resume`)}>{t('ao.resume')}</button>}
                </td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
    </section>
  );
}
