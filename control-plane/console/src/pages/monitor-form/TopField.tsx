import type { ComponentChildren } from 'preact';

/** Attributes that tie a control to its error line. */
export type ErrorAttrs = { 'aria-describedby'?: string; 'aria-invalid'?: true };

/**
 * A labelled request field of the monitor form with its error (the browser's schema check or the
 * API's `details.fields`): `children` gets the attributes that tie the control to the error.
 */
export function TopField({ id, label, error, children }: { id: string; label: string; error?: string | undefined; children: (attrs: ErrorAttrs) => ComponentChildren }) {
  const attrs: ErrorAttrs = error ? { 'aria-describedby': `${id}-error`, 'aria-invalid': true } : {};
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children(attrs)}
      {error && <p class="field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}
