import type { AttestKey } from '@vantage/shared-protocol';
import { CopyButton } from '../../components/CopyButton.js';
import { formatTime, t } from '../../i18n/i18n.js';

/**
 * The signing keys, newest version first (docs/api/verdicts.md "Keys"): version, status, the
 * public key's fingerprint, algorithm, created, rotated or revoked; each public key in PEM behind
 * a disclosure, with a copy button.
 */
export function KeysTable({ keys }: { keys: AttestKey[] }) {
  return (
    <table data-testid="signing-keys">
      <thead><tr>
        <th scope="col">{t('signing.version')}</th><th scope="col">{t('signing.status')}</th><th scope="col">{t('signing.fingerprint')}</th>
        <th scope="col">{t('signing.algorithm')}</th><th scope="col">{t('signing.created')}</th><th scope="col">{t('signing.retired')}</th>
        <th scope="col">{t('signing.public_key')}</th>
      </tr></thead>
      <tbody>{keys.map((k) => (
        <tr key={k.key_id}>
          <td>{k.key_version} <code class="hint">{k.key_id}</code></td>
          <td>{t(`signing.status.${k.status}`)}</td>
          <td class="clip"><code>{k.public_key_fingerprint}</code></td>
          <td>{k.algorithm}</td>
          <td>{formatTime(k.created_at)}</td>
          <td>{formatTime(k.revoked_at ?? k.rotated_at)}</td>
          <td>
            <details>
              <summary>{t('signing.public_key')}</summary>
              <pre class="pem" data-testid={`pem-${k.key_version}`}>{k.public_key_pem}</pre>
              <CopyButton value={k.public_key_pem} label={t('signing.copy_pem', { n: k.key_version })} />
            </details>
          </td>
        </tr>
      ))}</tbody>
    </table>
  );
}
