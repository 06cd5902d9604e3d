import { useState } from 'preact/hooks';
import { t } from '../i18n/i18n.js';

/** A secret the API returns once (an API key, an install command with its token): the value, why it matters, and a copy button. */
export function ShownOnce({ intro, value, copyLabel, testId }: { intro: string; value: string; copyLabel: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="status">
      <p>{intro}</p>
      <code data-testid={testId}>{value}</code>
      <button type="button" onClick={() => { void navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false)); }}>{copyLabel}</button>
      {copied && <span>{t('keys.copied')}</span>}
    </div>
  );
}
