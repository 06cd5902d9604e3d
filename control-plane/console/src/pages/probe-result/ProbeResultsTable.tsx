import type { NodeResult, ProbeTaskResult } from '@vantage/shared-protocol';
import { Empty } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';

/** The type's own column: HTTP status, ping loss, DNS answers, TCP address, hops, SMTP TLS mode, NTP offset, download rate, SSL grade. */
function detail(type: ProbeTaskResult['probe_type'], r: NodeResult): string {
  const x = r as Record<string, unknown>;
  switch (type) {
    case 'http': case 'headers': return x.status_code == null ? '' : String(x.status_code);
    case 'ping': return x.packet_loss == null ? '' : `${String(x.packet_loss)} %`;
    case 'dns': return Array.isArray(x.answers) ? String(x.answers.length) : '';
    case 'tcp': return typeof x.address === 'string' ? x.address : '';
    case 'traceroute': case 'mtr': return Array.isArray(x.hops) ? String(x.hops.length) : '';
    case 'speedtest': return typeof x.download_mbps === 'number' ? x.download_mbps.toFixed(1) : '';
    case 'smtp': return typeof x.tls_mode === 'string' ? x.tls_mode : '';
    case 'ntp': return typeof x.offset_ms === 'number' ? x.offset_ms.toFixed(3) : '';
    case 'ssl': return typeof (x.audit as { grade?: unknown } | null)?.grade === 'string' ? (x.audit as { grade: string }).grade : '';
  }
}

/** One row per node: where it is, whether it succeeded, its time (ms), the type's detail and any error. */
export function ProbeResultsTable({ type, rows }: { type: ProbeTaskResult['probe_type']; rows: NodeResult[] }) {
  if (rows.length === 0) return <Empty>{t('probes.waiting')}</Empty>;
  return (
    <table>
      <thead><tr>
        <th scope="col">{t('detail.node')}</th><th scope="col">{t('probes.location')}</th><th scope="col">{t('detail.result')}</th>
        <th scope="col">{t('probes.latency_ms')}</th><th scope="col">{t(`probes.detail.${type}`)}</th><th scope="col">{t('detail.error')}</th>
      </tr></thead>
      <tbody>{rows.map((r) => (
        <tr key={r.node_id}>
          <td>{r.node_name || r.node_id}</td>
          <td>{[r.node.city, r.node.country].filter(Boolean).join(', ')}</td>
          <td>{r.success ? t('detail.ok') : t('detail.failed')}</td>
          <td>{r.latency_ms === null ? '' : r.latency_ms.toFixed(1)}</td>
          <td>{detail(type, r)}</td>
          <td>{r.error ?? ''}</td>
        </tr>
      ))}</tbody>
    </table>
  );
}
