import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from './client.js';

/** The state of one GET: `data` once loaded, `error` when it failed, `reload` to fetch again. */
export interface Loaded<T> { data: T | null; error: unknown; loading: boolean; reload: () => void }

/** GET `path` (null: nothing yet) whenever it changes; keeps the last data while a new page loads. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: path !== null });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    api<T>('GET', path).then(
      (data) => { if (live) setState({ data, error: null, loading: false }); },
      (error: unknown) => { if (live) setState({ data: null, error, loading: false }); },
    );
    return () => { live = false; };
  }, [path, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}
