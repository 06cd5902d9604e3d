import type { ComponentChildren } from 'preact';

/** A labelled form control: the label wraps the control, a hint is tied to it by aria-describedby. */
export function Field({ label, hint, id, children }: { label: string; hint?: string; id: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
    </div>
  );
}
