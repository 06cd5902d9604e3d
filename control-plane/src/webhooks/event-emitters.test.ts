import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EVENT_TYPES, type EventType } from '@vantage/shared-protocol';
import t from 'tap';

/*
 * Every event of the catalog (shared-protocol events.ts EVENT_CATALOG, hence the OpenAPI document
 * and docs/api/webhooks.md) must have a code path that publishes it, wired into the running
 * control plane, and a test that receives it. The registry below is where each event must be
 * listed; this test fails for a catalogued event missing from it, for an entry whose source no
 * longer publishes the event, whose wiring left main.ts, or whose test no longer names it.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Emitter {
  /** The file that publishes the event (EventPublisher.publish, or the outbox row the relay publishes), from the repository root. */
  source: string;
  /** Text that must appear in `source`: the publish call's type, or the template and the values it takes. */
  emits: string[];
  /** Text main.ts must contain when the emitter only publishes once given the publisher. */
  wired?: string;
  /** A test that receives the event (a real endpoint or the delivery queue), from the repository root. */
  exercised_by: string;
}

const STATE = { source: 'control-plane/src/checks/webhook-events.ts', wired: 'webhookStateEvents(outbound.events)' };
const ALERT = { source: 'control-plane/src/alerting/events.ts', exercised_by: 'test/e2e/monitoring.e2e.test.ts' };
const OUTBOX = 'control-plane/src/db/migrations/0022_event_outbox.sql';

/** Where each catalogued event comes from. */
const EMITTERS: Record<EventType, Emitter> = {
  'monitor.down': { ...STATE, emits: ['type: `monitor.${to}`', "to === 'down'"], exercised_by: 'control-plane/src/control-checks/heartbeat-webhook.test.ts' },
  'monitor.up': { ...STATE, emits: ['type: `monitor.${to}`', "to === 'up'"], exercised_by: 'control-plane/src/control-checks/heartbeat-webhook.test.ts' },
  'monitor.degraded': { ...STATE, emits: ['type: `monitor.${to}`', "to === 'degraded'"], exercised_by: 'test/e2e/monitoring.e2e.test.ts' },
  'monitor.no_data': { ...STATE, emits: ['type: `monitor.${to}`', "to === 'no_data'"], exercised_by: 'control-plane/src/checks/decide-silent.test.ts' },
  'monitor.paused': { source: 'control-plane/src/monitors/writer.ts', emits: ["'monitor.paused'"], exercised_by: 'control-plane/src/monitors/monitors.routes.test.ts' },
  'monitor.resumed': { source: 'control-plane/src/monitors/writer.ts', emits: ["'monitor.resumed'"], exercised_by: 'control-plane/src/monitors/monitors.routes.test.ts' },
  'alert.firing': { ...ALERT, emits: ['type: `alert.${row.status}`', 'firing:'] },
  'alert.acknowledged': { ...ALERT, emits: ['type: `alert.${row.status}`', 'acknowledged:'] },
  'alert.resolved': { ...ALERT, emits: ['type: `alert.${row.status}`', 'resolved:'] },
  'node.online': { source: OUTBOX, emits: ["VALUES ('node.online'"], exercised_by: 'control-plane/src/webhooks/event-sources.test.ts' },
  'node.offline': { source: OUTBOX, emits: ["VALUES ('node.offline'"], exercised_by: 'control-plane/src/webhooks/event-sources.test.ts' },
  'probe.completed': { source: OUTBOX, emits: ["VALUES ('probe.completed'"], exercised_by: 'control-plane/src/webhooks/event-sources.test.ts' },
  'heartbeat.missed': {
    source: 'control-plane/src/control-checks/heartbeat-job.ts', emits: ["type: 'heartbeat.missed'"],
    wired: 'startHeartbeatJob({ ...base, events: outbound.events })', exercised_by: 'control-plane/src/control-checks/heartbeat-webhook.test.ts',
  },
  'ssl.expiring': {
    source: 'control-plane/src/checks/certificate-events.ts', emits: ["type: 'ssl.expiring'"],
    wired: 'withCertificateEvents(createCheckStore({ ...base, wake: verdictWake }), outbound.events)', exercised_by: 'control-plane/src/checks/certificate-events.test.ts',
  },
  'domain.expiring': {
    source: 'control-plane/src/control-checks/domain-expiry-events.ts', emits: ["type: 'domain.expiring'"],
    wired: 'startDomainExpiryJob({ ...base, events: outbound.events }', exercised_by: 'control-plane/src/control-checks/domain-expiry-job.test.ts',
  },
  'certificate.expiring': {
    source: 'control-plane/src/certificates/expiry-notices.ts', emits: ["type: 'certificate.expiring'"],
    wired: 'startCertificateJobs({ ...base, box: secretBoxOf(config), events: outbound.events, mail: outbound.mail })', exercised_by: 'control-plane/src/certificates/expiry-notices.test.ts',
  },
  'webhook.ping': { source: 'control-plane/src/webhooks/webhook-endpoints.routes.ts', emits: ["type: 'webhook.ping'"], exercised_by: 'control-plane/src/webhooks/delivery.test.ts' },
};

const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

t.test('every catalogued event has an emitter, and every emitter a catalogued event', async (t) => {
  const listed = Object.keys(EMITTERS).sort();
  t.same(EVENT_TYPES.filter((e) => !listed.includes(e)), [], 'catalogued events no code path is listed as publishing');
  t.same(listed.filter((e) => !(EVENT_TYPES as string[]).includes(e)), [], 'listed events not in the catalog');
});

t.test('each emitter publishes its event, is wired into main.ts, and a test receives it', async (t) => {
  const main = read('control-plane/src/main.ts');
  for (const [event, e] of Object.entries(EMITTERS)) {
    t.ok(existsSync(`${ROOT}${e.source}`) && !e.source.endsWith('.test.ts'), `${event}: ${e.source} is code`);
    const source = read(e.source);
    for (const snippet of e.emits) t.ok(source.includes(snippet), `${event}: ${e.source} has ${snippet}`);
    if (e.wired) t.ok(main.includes(e.wired), `${event}: main.ts has ${e.wired}`);
    t.ok(existsSync(`${ROOT}${e.exercised_by}`) && read(e.exercised_by).includes(`'${event}'`), `${event}: ${e.exercised_by} names it`);
  }
});
