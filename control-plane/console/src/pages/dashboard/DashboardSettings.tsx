import { useState } from 'preact/hooks';
import type { AsCodeMark, Dashboard } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Conflict } from '../../components/Conflict.js';
import { Field } from '../../components/Field.js';
import { LockedFields } from '../../components/managed/Managed.js';
import { t } from '../../i18n/i18n.js';

/**
 * A dashboard's name, description and whether its share link works (PATCH /v1/dashboards/{id}
 * with `expected_version`: a change made elsewhere since it was read is refused, 409 CONFLICT,
 * and shown as such with a reload). Read-only for a dashboard applied from a file (`mark`,
 * docs/api/as-code.md "Marks").
 */
export function DashboardSettings({ dashboard, mark, saved }: { dashboard: Dashboard; mark: AsCodeMark | null; saved: () => void }) {
  const [name, setName] = useState(dashboard.name);
  const [description, setDescription] = useState(dashboard.description);
  const [isPublic, setPublic] = useState(dashboard.is_public);
  const { busy, error, submit } = useSubmit(async () => {
    await api('PATCH', `/v1/dashboards/${encodeURIComponent(dashboard.id)}`, { name, description, is_public: isPublic, expected_version: dashboard.version });
    saved();
  });
  return (
    <>
      <h2>{t('dash.settings')}</h2>
      <form onSubmit={submit} class="narrow">
        <LockedFields mark={mark}>
          <Field id="ds-name" label={t('dash.name')}><input id="ds-name" required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></Field>
          <Field id="ds-description" label={t('dash.description')}>
            <textarea id="ds-description" rows={2} maxLength={2000} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
          </Field>
          <label class="check"><input type="checkbox" checked={isPublic} onChange={(e) => setPublic((e.target as HTMLInputElement).checked)} />{t('dash.is_public')}</label>
          <p class="hint">{t('dash.is_public_hint')}</p>
          <Conflict id="ds-error" error={error} reload={saved} />
          <button type="submit" class="primary" disabled={busy}>{t('dash.save')}</button>
        </LockedFields>
      </form>
    </>
  );
}
