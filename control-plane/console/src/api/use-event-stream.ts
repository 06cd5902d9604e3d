import { useEffect, useRef, useState } from 'preact/hooks';
import { EventSource } from 'eventsource';
import { sessionFetch } from './client.js';

/** Where a stream stands: connecting (or reconnecting), open, or closed by a refusal (a retry opens it again). */
export type StreamState = 'connecting' | 'open' | 'closed';

/**
 * Follow a server-sent-events stream of the API that needs the session's bearer token (browsers'
 * own EventSource sends no header): the `eventsource` package's EventSource with the session's
 * fetch. It reconnects by itself after a dropped connection and sends `Last-Event-ID`, so the API
 * resends what was missed (docs/api/agent-obs.md "Event stream"). Each `event` frame's JSON data
 * is handed to `onData` (null path: not yet). A refusal (not 200) closes the stream: `retry`
 * opens a new one.
 */
export function useEventStream(path: string | null, event: string, onData: (data: unknown) => void): { state: StreamState; error: string | null; retry: () => void } {
  const [state, setState] = useState<StreamState>('connecting');
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const latest = useRef(onData);
  latest.current = onData;
  useEffect(() => {
    if (path === null) return;
    setState('connecting');
    setError(null);
    // The package types its fetch init loosely (for polyfills' AbortSignal); it is a RequestInit.
    const source = new EventSource(path, { fetch: (url, init) => sessionFetch(url, init as unknown as RequestInit) });
    source.onopen = () => setState('open');
    source.onerror = (e) => {
      if (source.readyState === EventSource.CLOSED) { setState('closed'); setError(e.message ?? (e.code ? `HTTP ${e.code}` : null)); }
      else setState('connecting');
    };
    source.addEventListener(event, (e) => {
      try { latest.current(JSON.parse(e.data)); } catch { /* a frame that is not JSON is not ours to show */ }
    });
    return () => source.close();
  }, [path, event, tick]);
  return { state, error, retry: () => setTick((n) => n + 1) };
}
