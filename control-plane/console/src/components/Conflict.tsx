import { ApiFailure } from '../api/client.js';
import { t } from '../i18n/i18n.js';
import { Refusal } from './Refusal.js';

/**
 * A refused versioned write (docs/api/dashboards.md "Versions"): a 409 CONFLICT says the
 * dashboard was changed elsewhere, with the version it is at now and a reload button (unsaved
 * edits here are dropped); any other refusal is shown as the API says it.
 */
export function Conflict({ id, error, reload }: { id: string; error: unknown; reload: () => void }) {
  if (!(error instanceof ApiFailure && error.code === 'CONFLICT')) return <Refusal id={id} error={error} />;
  const current = error.details?.current_version;
  return (
    <div id={id} class="form-error" role="alert">
      <p>{t('dash.conflict', { version: typeof current === 'number' ? current : '?' })}</p>
      <button type="button" onClick={reload}>{t('dash.reload')}</button>
    </div>
  );
}
