import type { ComponentChildren } from 'preact';
import { ApiFailure } from '../api/client.js';
import { t } from '../i18n/i18n.js';

/** Shown while a page's data loads (announced politely to screen readers). */
export function Loading() {
  return <p class="state" role="status" aria-live="polite">{t('state.loading')}</p>;
}

/** A failed load: the API's message (already in the user's language) and a retry button. */
export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof ApiFailure ? `${error.message} (${error.code})` : String((error as Error)?.message ?? error);
  return (
    <div class="state error" role="alert">
      <p><strong>{t('state.error')}</strong>: {message}</p>
      {retry && <button type="button" onClick={retry}>{t('state.retry')}</button>}
    </div>
  );
}

/** An empty list: says what to do next, with the action. */
export function Empty({ children, action }: { children: ComponentChildren; action?: ComponentChildren }) {
  return <div class="state empty"><p>{children}</p>{action}</div>;
}

/** A form-level error message, linked to the form by `id`. */
export function FormError({ id, error }: { id: string; error: unknown }) {
  if (!error) return null;
  const message = error instanceof ApiFailure ? error.message : String((error as Error).message ?? error);
  return <p id={id} class="form-error" role="alert">{message}</p>;
}
