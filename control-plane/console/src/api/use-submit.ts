import { useState } from 'preact/hooks';

/**
 * A form's submit: `submit` prevents the page load, runs `action`, and keeps `busy` true while it
 * runs and the failure in `error` (cleared on the next try). `onError` may take a failure itself
 * (return true) instead of showing it, as the login form does for the 2FA prompt.
 */
export function useSubmit(action: () => Promise<void>, onError?: (err: unknown) => boolean) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      if (!onError?.(err)) setError(err);
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, setError, submit };
}
