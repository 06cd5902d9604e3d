import { useState } from 'preact/hooks';
import { t } from '../i18n/i18n.js';

/** A button copying `value` to the clipboard, saying so once it did; `label` names what it copies (for screen readers too). */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <button type="button" onClick={() => { void navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false)); }}>{label}</button>
      {copied && <span role="status">{t('keys.copied')}</span>}
    </>
  );
}
