import type { MonitorImportResult } from '@vantage/shared-protocol';
import { Link } from '../../components/Link.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { t } from '../../i18n/i18n.js';

/** An import report: counts, groups created, one row per monitor (its outcome and error), heartbeat check-in URLs once. */
export function ImportReport({ report }: { report: MonitorImportResult }) {
  const valid = report.items.filter((i) => i.status === 'valid').length;
  return (
    <div role="status">
      <h2>{report.dry_run ? t('transfer.report_dry') : t('transfer.report')}</h2>
      <p data-testid="import-summary">{report.dry_run
        ? t('transfer.summary_dry', { valid, failed: report.failed })
        : t('transfer.summary', { created: report.created, failed: report.failed })}</p>
      {report.groups_created.length > 0 && <p>{t('transfer.groups_created', { groups: report.groups_created.join(', ') })}</p>}
      <table>
        <thead><tr><th scope="col">#</th><th scope="col">{t('monitors.name')}</th><th scope="col">{t('transfer.outcome')}</th><th scope="col">{t('detail.error')}</th></tr></thead>
        <tbody>{report.items.map((i) => (
          <tr key={i.index}>
            <td>{i.index + 1}</td>
            <td>{i.monitor_id ? <Link href={`/monitors/${i.monitor_id}`}>{i.name ?? ''}</Link> : i.name ?? ''}</td>
            <td>{t(`transfer.status.${i.status}`)}</td>
            <td>{i.error ? `${i.error.message} (${i.error.code})` : ''}</td>
          </tr>
        ))}</tbody>
      </table>
      {report.items.filter((i) => i.heartbeat).map((i) => (
        <ShownOnce key={i.index} intro={t('transfer.heartbeat_once', { name: i.name ?? '' })} value={i.heartbeat!.url} copyLabel={t('form.heartbeat_copy')} testId={`import-heartbeat-${i.index}`} />
      ))}
    </div>
  );
}
