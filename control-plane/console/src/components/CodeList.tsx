import { t } from '../i18n/i18n.js';

/** Recovery codes the API returns once: the list and why to keep it. */
export function CodeList({ codes }: { codes: string[] }) {
  return (
    <div class="secret" role="status">
      <p>{t('security.codes_once')}</p>
      <ul class="codes" data-testid="recovery-codes">{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
    </div>
  );
}
