import '../../shims/buffer-global.js';
import { useState } from 'preact/hooks';
import type { AsCodeMark } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useSubmit } from '../../api/use-submit.js';
import { downloadText } from '../../components/download.js';
import { Field } from '../../components/Field.js';
import { Listed } from '../../components/Listed.js';
import { FormError } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { consoleApiClient } from './as-code-client.js';

/**
 * Monitoring as code (docs/api/as-code.md): download the account's resources as a version 1 file
 * (YAML or JSON), made by the same exporter as `vantage export` (node-agent/src/as-code/export.ts,
 * loaded when asked for) through the public API as the signed-in user, so `vantage plan` on the
 * file shows no changes; and the resources applied from files (GET /v1/as-code/marks), each
 * unmarked on request (DELETE /v1/as-code/marks/{kind}/{id}) to be managed here again.
 */
export default function AsCodePage() {
  const marks = useApi<{ items: AsCodeMark[] }>('/v1/as-code/marks');
  const action = useAction(marks.reload);
  const [format, setFormat] = useState<'yaml' | 'json'>('yaml');
  const exporting = useSubmit(async () => {
    const { exportAccount } = await import('@vantage/node-agent/as-code/export');
    const text = await exportAccount(consoleApiClient, format);
    downloadText(text, `vantage-${new Date().toISOString().slice(0, 10)}.${format}`, format === 'json' ? 'application/json' : 'application/yaml');
  });
  const unmark = (m: AsCodeMark) => action.run(async () => {
    if (!confirm(t('ascode.unmark_confirm', { key: m.key, file: m.source_file }))) return;
    await api('DELETE', `/v1/as-code/marks/${m.kind}/${encodeURIComponent(m.resource_id)}`);
    marks.reload();
  });
  return (
    <section>
      <h1>{t('ascode.title')}</h1>
      <p class="hint">{t('ascode.intro')}</p>
      <h2>{t('ascode.export')}</h2>
      <p>{t('ascode.export_hint')}</p>
      <form onSubmit={exporting.submit} class="inline">
        <Field id="export-format" label={t('ascode.format')}>
          <select id="export-format" value={format} onChange={(e) => setFormat((e.target as HTMLSelectElement).value === 'json' ? 'json' : 'yaml')}>
            <option value="yaml">YAML</option>
            <option value="json">JSON</option>
          </select>
        </Field>
        <button type="submit" class="primary" disabled={exporting.busy}>{t('ascode.download')}</button>
      </form>
      <FormError id="export-error" error={exporting.error} />
      <h2>{t('ascode.managed')}</h2>
      <p>{t('ascode.managed_hint')}</p>
      <FormError id="unmark-error" error={action.error} />
      <Listed loaded={marks} items={(d) => d.items} empty={t('ascode.managed_empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('ascode.kind')}</th><th scope="col">{t('ascode.key')}</th><th scope="col">{t('ascode.file')}</th>
              <th scope="col">{t('ascode.applied')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
            </tr></thead>
            <tbody>{d.items.map((m) => (
              <tr key={`${m.kind}/${m.resource_id}`}>
                <td>{t(`ascode.kind.${m.kind}`)}</td><td>{m.key}</td><td><code>{m.source_file}</code></td><td>{formatTime(m.updated_at)}</td>
                <td><button type="button" aria-label={t('ascode.unmark_named', { key: m.key })} onClick={() => void unmark(m)}>{t('ascode.unmark')}</button></td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
    </section>
  );
}
