import type { KeyCeremony } from '@vantage/shared-protocol';
import { formatTime, t } from '../../i18n/i18n.js';

/** The key ceremony logs, newest first (docs/api/verdicts.md "Key ceremonies"): when, what, which key, who, evidence, notes. */
export function CeremoniesTable({ ceremonies }: { ceremonies: KeyCeremony[] }) {
  return (
    <table data-testid="ceremonies">
      <thead><tr>
        <th scope="col">{t('signing.when')}</th><th scope="col">{t('signing.ceremony_action')}</th><th scope="col">{t('signing.key')}</th>
        <th scope="col">{t('signing.actors')}</th><th scope="col">{t('signing.evidence')}</th><th scope="col">{t('signing.notes')}</th>
      </tr></thead>
      <tbody>{ceremonies.map((c) => (
        <tr key={c.id}>
          <td>{formatTime(c.created_at)}</td>
          <td>{t(`signing.ceremony_action.${c.action}`)}</td>
          <td>{c.key_version ?? ''} <code class="hint">{c.key_id ?? ''}</code></td>
          <td>{c.actors.map((a) => `${a.identity} (${a.role})`).join(', ')}</td>
          <td class="clip">{c.evidence_url && <a href={c.evidence_url} rel="noreferrer noopener" target="_blank">{c.evidence_url}</a>}</td>
          <td>{c.notes}</td>
        </tr>
      ))}</tbody>
    </table>
  );
}
