import type { CheckItem, Monitor, StateChange, Stats, Uptime } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { useMarks } from '../../api/use-marks.js';
import { LatencyChart } from '../../components/LatencyChart.js';
import { ManagedNote } from '../../components/managed/Managed.js';
import { MoveTeam } from '../../components/MoveTeam.js';
import { StateBadge } from '../../components/StateBadge.js';
import { Empty, ErrorState, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { MonitorActions } from './MonitorActions.js';
import { HeartbeatPanel } from './HeartbeatPanel.js';
import { ArtifactsPanel } from './ArtifactsPanel.js';

const PERIODS = ['24h', '7d', '30d', '90d'] as const;

function UptimeCell({ base, period }: { base: string; period: (typeof PERIODS)[number] }) {
  const up = useApi<Uptime>(`${base}/uptime?period=${period}`);
  const value = up.data?.uptime_percent;
  return (
    <div class="stat">
      <dt>{t(`detail.period.${period}`)}</dt>
      <dd>{up.error ? '!' : up.data ? (value === null || value === undefined ? t('monitors.no_data') : `${value.toFixed(3)} %`) : '…'}</dd>
    </div>
  );
}

/** One monitor: state and actions, its owner (moved into or out of a team), uptime over 24 h/7 d/30 d/90 d, latency per node (uPlot), recent checks and state changes. */
export default function MonitorDetailPage({ params }: { params: Record<string, string> }) {
  const base = `/v1/monitors/${encodeURIComponent(params.id!)}`;
  const monitor = useApi<Monitor>(base);
  const stats = useApi<Stats>(`${base}/stats?group_by=node`);
  const checks = useApi<{ items: CheckItem[] }>(`${base}/checks?page_size=20`);
  const changes = useApi<{ items: StateChange[] }>(`${base}/state-changes?page_size=20`);
  const markOf = useMarks('monitor');
  if (monitor.error) return <ErrorState error={monitor.error} retry={monitor.reload} />;
  if (!monitor.data) return <Loading />;
  const m = monitor.data;
  const hasLatency = (stats.data?.overall.checks ?? 0) > 0;
  return (
    <section>
      <div class="title-row">
        <h1>{m.name}</h1>
        <StateBadge state={m.state} />
      </div>
      <p class="muted">{m.type} · {m.target ?? ''} · {t('form.seconds', { n: m.interval_s })}</p>
      <ManagedNote mark={markOf(m.id)} />
      <MonitorActions monitor={m} mark={markOf(m.id)} changed={monitor.reload} />
      {m.type === 'heartbeat' && <HeartbeatPanel monitor={m} changed={monitor.reload} />}
      <MoveTeam resource={m} path={base} moved={monitor.reload} />
      <h2>{t('detail.uptime')}</h2>
      <dl class="stats">{PERIODS.map((p) => <UptimeCell key={p} base={base} period={p} />)}</dl>
      <h2>{t('detail.latency')}</h2>
      {stats.error ? <ErrorState error={stats.error} retry={stats.reload} /> : !stats.data ? <Loading /> : hasLatency ? <LatencyChart stats={stats.data} /> : <Empty>{t('detail.latency_empty')}</Empty>}
      <h2>{t('detail.checks')}</h2>
      {checks.error ? <ErrorState error={checks.error} retry={checks.reload} /> : !checks.data ? <Loading /> : checks.data.items.length === 0 ? <Empty>{t('detail.checks_empty')}</Empty> : (
        <table>
          <thead><tr><th scope="col">{t('detail.time')}</th><th scope="col">{t('detail.node')}</th><th scope="col">{t('detail.result')}</th><th scope="col">{t('detail.response_ms')}</th><th scope="col">{t('detail.error')}</th></tr></thead>
          <tbody>{checks.data.items.map((c) => (
            <tr key={`${c.node_id}:${c.scheduled_at}`}>
              <td>{formatTime(c.finished_at)}</td><td>{c.node_id ?? t('detail.control_plane')}</td>
              <td>{c.success ? t('detail.ok') : t('detail.failed')}</td><td>{c.response_ms ?? ''}</td><td>{c.error ?? ''}</td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {m.type === 'browser' && checks.data && <ArtifactsPanel checks={checks.data.items} />}
      <h2>{t('detail.state_changes')}</h2>
      {changes.error ? <ErrorState error={changes.error} retry={changes.reload} /> : !changes.data ? <Loading /> : changes.data.items.length === 0 ? <Empty>{t('detail.state_changes_empty')}</Empty> : (
        <table>
          <thead><tr><th scope="col">{t('detail.time')}</th><th scope="col">{t('detail.from')}</th><th scope="col">{t('detail.to')}</th><th scope="col">{t('detail.reason')}</th></tr></thead>
          <tbody>{changes.data.items.map((s) => (
            <tr key={s.id}><td>{formatTime(s.changed_at)}</td><td><StateBadge state={s.from_state} /></td><td><StateBadge state={s.to_state} /></td><td>{s.reason ?? ''}</td></tr>
          ))}</tbody>
        </table>
      )}
    </section>
  );
}
