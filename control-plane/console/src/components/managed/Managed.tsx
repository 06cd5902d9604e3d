import type { ComponentChildren } from 'preact';
import type { AsCodeMark } from '@vantage/shared-protocol';
import { t } from '../../i18n/i18n.js';
import { Link } from '../Link.js';

/** The id of the explanation the disabled controls of managed resources point at (aria-describedby). */
export const MANAGED_NOTE_ID = 'managed-note';

/** "Managed by file <source_file>" on a row or page of a resource applied from a file (docs/api/as-code.md "Marks"). */
export function ManagedBadge({ mark }: { mark: AsCodeMark | null }) {
  if (!mark) return null;
  return <span class="badge managed">{t('managed.badge')} <code>{mark.source_file}</code></span>;
}

/**
 * Why managed resources are read-only here and how to change one: edit its file and run
 * `vantage apply`, or unmark it (`DELETE /v1/as-code/marks/{kind}/{id}`, or on the monitoring as
 * code page) to manage it here again. Shown once per page, only when something on it is managed:
 * a list's rows (`marks`), or the one resource of its own page (`mark`: the file and key named).
 */
export function ManagedNote({ marks = [], mark = null }: { marks?: Array<AsCodeMark | null>; mark?: AsCodeMark | null }) {
  if (!mark && !marks.some((m) => m !== null)) return null;
  return (
    <div id={MANAGED_NOTE_ID} class="managed-note" role="note">
      {mark && <p><ManagedBadge mark={mark} /> {t('managed.key', { key: mark.key })}</p>}
      <p>{t('managed.read_only')}</p>
      <p>{t('managed.unmark')} <Link href="/as-code">{t('managed.unmark_link')}</Link></p>
    </div>
  );
}

/** The props that disable an edit or delete control of a managed resource and point it at the note; none for an unmarked one. */
export function lockedBy(mark: AsCodeMark | null): { disabled?: true; 'aria-describedby'?: string; title?: string } {
  return mark ? { disabled: true, 'aria-describedby': MANAGED_NOTE_ID, title: t('managed.locked', { file: mark.source_file }) } : {};
}

/**
 * A form's fields, all disabled (a disabled fieldset) when the resource is managed by a file
 * (`mark`), pointing at the note; links inside stay usable.
 */
export function LockedFields({ mark, children }: { mark: AsCodeMark | null; children: ComponentChildren }) {
  return <fieldset class="locked-fields" disabled={mark !== null} aria-describedby={mark ? MANAGED_NOTE_ID : undefined}>{children}</fieldset>;
}
