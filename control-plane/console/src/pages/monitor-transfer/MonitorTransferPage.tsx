import { useState } from 'preact/hooks';
import type { MonitorImportResult } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { downloadText } from '../../components/download.js';
import { Field } from '../../components/Field.js';
import { Link } from '../../components/Link.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { ImportReport } from './ImportReport.js';

/**
 * Export and import of monitors (docs/api/monitors.md "Export and import"): download the export
 * document (GET /v1/monitors/export) as a JSON file; import one (POST /v1/monitors/import), read
 * from a file or pasted, as a dry run first if wanted, with the report per monitor.
 */
export default function MonitorTransferPage() {
  const [document, setDocument] = useState('');
  const [dry_run, setDryRun] = useState(true);
  const [report, setReport] = useState<MonitorImportResult | null>(null);
  const exporting = useSubmit(async () => {
    const doc = await api<unknown>('GET', '/v1/monitors/export');
    downloadText(JSON.stringify(doc, null, 2), `vantage-monitors-${new Date().toISOString().slice(0, 10)}.json`, 'application/json');
  });
  const importing = useSubmit(async () => {
    setReport(null);
    let parsed: unknown;
    try { parsed = JSON.parse(document); } catch { throw new Error(t('transfer.not_json')); }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(t('transfer.not_json'));
    setReport(await api<MonitorImportResult>('POST', '/v1/monitors/import', { ...(parsed as Record<string, unknown>), dry_run }));
  });
  async function readFile(e: Event) {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (file) setDocument(await file.text());
  }
  return (
    <section>
      <h1>{t('transfer.title')}</h1>
      <p><Link href="/monitors">{t('transfer.back')}</Link></p>
      <h2>{t('transfer.export')}</h2>
      <p>{t('transfer.export_hint')}</p>
      <form onSubmit={exporting.submit}>
        <button type="submit" class="primary" disabled={exporting.busy}>{t('transfer.download')}</button>
        <FormError id="export-error" error={exporting.error} />
      </form>
      <h2>{t('transfer.import')}</h2>
      <form onSubmit={importing.submit} class="narrow">
        <Field id="imp-file" label={t('transfer.file')}><input id="imp-file" type="file" accept="application/json,.json" onChange={(e) => void readFile(e)} /></Field>
        <Field id="imp-doc" label={t('transfer.document')}>
          <textarea id="imp-doc" rows={8} required value={document} onInput={(e) => setDocument((e.target as HTMLTextAreaElement).value)} />
        </Field>
        <label class="check"><input type="checkbox" checked={dry_run} onChange={(e) => setDryRun((e.target as HTMLInputElement).checked)} />{t('transfer.dry_run')}</label>
        <FormError id="import-error" error={importing.error} />
        <button type="submit" class="primary" disabled={importing.busy}>{dry_run ? t('transfer.check') : t('transfer.run')}</button>
      </form>
      {report && <ImportReport report={report} />}
    </section>
  );
}
