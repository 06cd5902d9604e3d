import type { AgentObsEvent, AgentObsMonitor } from '@vantage/shared-protocol';
import { SectionTabs, type Tab } from '../../components/SectionTabs.js';
import { UsageBar } from '../../components/UsageBar.js';
import { formatUsd } from '../../components/money.js';
import { formatTime, t } from '../../i18n/i18n.js';

/*
 * What the agent observability pages share (docs/api/agent-obs.md): the section's tabs, a
 * monitor's state badge, its cost this month against its budget, and one event as a table row.
 */

const TABS: Tab[] = [
  { href: '/agent-obs', label: 'ao.tab.monitors' },
  { href: '/agent-obs/events', label: 'ao.tab.stream' },
];

/** The agent observability section's sub-navigation. */
export function AgentObsTabs({ here }: { here: string }) {
  return <SectionTabs tabs={TABS} label="ao.tabs" here={here} />;
}

const BADGE: Record<AgentObsMonitor['status'], string> = { active: 'state-up', paused: '', exceeded_budget: 'state-down' };

/** A monitor's state: active, paused, or paused by its spent budget. */
export function StatusBadge({ status }: { status: AgentObsMonitor['status'] }) {
  return <span class={`badge ${BADGE[status]}`}>{t(`ao.status.${status}`)}</span>;
}

/** The month's cost (UTC calendar month) against the monthly budget: a bar and the figures, or the cost alone without a budget. */
export function CostCell({ monitor: m }: { monitor: AgentObsMonitor }) {
  const cost = formatUsd(m.total_cost_this_month_usd);
  return m.budget_monthly_usd === null
    ? <UsageBar used={m.total_cost_this_month_usd} limit={null} label="" text={t('ao.cost_no_budget', { cost })} />
    : <UsageBar used={m.total_cost_this_month_usd} limit={m.budget_monthly_usd} label={t('ao.cost_bar', { name: m.agent_name })}
      text={t('ao.cost_of_budget', { cost, budget: formatUsd(m.budget_monthly_usd) })} />;
}

/** The column headers of an event table (`monitor`: with the monitor's column). */
export function EventHead({ monitor }: { monitor: boolean }) {
  return (
    <thead><tr>
      <th scope="col">{t('ao.occurred_at')}</th>{monitor && <th scope="col">{t('ao.monitor')}</th>}<th scope="col">{t('ao.outcome')}</th>
      <th scope="col">{t('ao.latency_ms')}</th><th scope="col">{t('ao.cost')}</th><th scope="col">{t('ao.region')}</th><th scope="col">{t('ao.detail')}</th>
    </tr></thead>
  );
}

/** One event: when, outcome (or its failure class), latency, cost, region and why it failed. */
export function EventRow({ event: e, monitorName }: { event: AgentObsEvent; monitorName?: string }) {
  const detail = e.failure_detail ?? {};
  const why = typeof detail.error === 'string' ? detail.error : '';
  return (
    <tr data-event-id={e.id}>
      <td>{formatTime(e.occurred_at)}</td>
      {monitorName !== undefined && <td>{monitorName}</td>}
      <td><span class={`badge ${e.success ? 'state-up' : 'state-down'}`}>{e.success ? t('ao.success') : t(`ao.failure.${e.failure_class ?? '5xx'}`)}</span></td>
      <td>{e.latency_ms ?? ''}</td>
      <td>{e.cost_usd === null ? t('ao.not_charged') : formatUsd(e.cost_usd)}</td>
      <td>{e.region ?? ''}</td>
      <td class="clip">{why}</td>
    </tr>
  );
}
