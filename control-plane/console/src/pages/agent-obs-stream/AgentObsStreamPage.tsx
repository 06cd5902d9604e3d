import { useEffect, useState } from 'preact/hooks';
import type { AgentObsEvent, AgentObsMonitor } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { useEventStream } from '../../api/use-event-stream.js';
import { Field } from '../../components/Field.js';
import { Empty, ErrorState, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { AgentObsTabs, EventHead, EventRow } from '../agent-obs/parts.js';

/** The most events the page keeps (newest first); older ones drop off the bottom. */
const KEEP = 200;

/** `events` with `incoming` added, newest first by occurrence, each id once, at most KEEP. */
function merge(events: AgentObsEvent[], incoming: AgentObsEvent[]): AgentObsEvent[] {
  const seen = new Set(events.map((e) => e.id));
  const fresh = incoming.filter((e) => !seen.has(e.id));
  return fresh.length === 0 ? events : [...fresh, ...events].sort((a, b) => b.occurred_at.localeCompare(a.occurred_at)).slice(0, KEEP);
}

/**
 * The live event stream (GET /v1/agent-obs/events/stream, optionally for one `monitor_id` from the
 * URL): the 20 latest events (GET /v1/agent-obs/events), then each new one as it is recorded, on
 * top. A dropped connection resumes with Last-Event-ID, so none is missed (docs/api/agent-obs.md
 * "Event stream"); the connection's state is announced.
 */
export default function AgentObsStreamPage() {
  const { query } = useLocation();
  const monitor_id = query.get('monitor_id') ?? '';
  const filter = monitor_id ? `monitor_id=${encodeURIComponent(monitor_id)}` : '';
  const monitors = useApi<AgentObsMonitor[]>('/v1/agent-obs/monitors');
  const [events, setEvents] = useState<AgentObsEvent[]>([]);
  const stream = useEventStream(`/v1/agent-obs/events/stream${filter ? `?${filter}` : ''}`, 'agent_obs.event', (e) => setEvents((list) => merge(list, [e as AgentObsEvent])));
  const recent = useApi<{ items: AgentObsEvent[] }>(`/v1/agent-obs/events?limit=20${filter ? `&${filter}` : ''}`);
  useEffect(() => setEvents([]), [monitor_id]);
  useEffect(() => { if (recent.data) setEvents((list) => merge(list, recent.data!.items)); }, [recent.data]);
  const names = new Map((monitors.data ?? []).map((m) => [m.id, m.agent_name]));
  return (
    <section>
      <h1>{t('ao.stream_title')}</h1>
      <AgentObsTabs here="/agent-obs/events" />
      <div class="filters">
        <Field id="ao-stream-monitor" label={t('ao.monitor')}>
          <select id="ao-stream-monitor" value={monitor_id} onChange={(e) => {
            const id = (e.target as HTMLSelectElement).value;
            navigate(id ? `/agent-obs/events?monitor_id=${encodeURIComponent(id)}` : '/agent-obs/events', true);
          }}>
            <option value="">{t('ao.all_monitors')}</option>
            {(monitors.data ?? []).map((m) => <option key={m.id} value={m.id}>{m.agent_name}</option>)}
          </select>
        </Field>
      </div>
      <p class="stream-state" role="status" aria-live="polite">{t(`ao.stream.${stream.state}`)}</p>
      {stream.state === 'closed' && <ErrorState error={new Error(stream.error ?? t('ao.stream.closed'))} retry={stream.retry} />}
      {recent.error ? <ErrorState error={recent.error} retry={recent.reload} /> : null}
      {events.length === 0 && !recent.data && !recent.error && <Loading />}
      {events.length === 0
        ? recent.data && <Empty>{t('ao.stream_empty')}</Empty>
        : (
          <table aria-live="polite">
            <caption class="sr-only">{t('ao.stream_caption')}</caption>
            <EventHead monitor />
            <tbody>{events.map((e) => <EventRow key={e.id} event={e} monitorName={names.get(e.monitor_id) ?? e.monitor_id} />)}</tbody>
          </table>
        )}
    </section>
  );
}
