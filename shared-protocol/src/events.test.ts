import t from 'tap';
import { EVENT_CATALOG, EVENT_TYPES, SUBSCRIBABLE_EVENTS, eventEnvelopeSchema, parseEventData } from './events.js';

const monitor = { id: 'm_01jd3k6w9z4q8r2t7v5x1y3b6c', name: 'shop', type: 'https', target: 'https://shop.example' };
const when = '2026-11-22T10:00:00.000Z';
const EXAMPLES: Record<string, unknown> = {
  'monitor.down': { monitor, status: 'down', previous_status: 'up', reason: '3 of 5 nodes failed', failing_nodes: [{ node_id: 'n_1', country: 'DE', error: 'timeout' }], changed_at: when },
  'monitor.up': { monitor, status: 'up', previous_status: 'down', reason: null, failing_nodes: [], changed_at: when },
  'monitor.degraded': { monitor, status: 'degraded', previous_status: 'up', reason: '1 of 5 nodes failed', failing_nodes: [], changed_at: when },
  'monitor.no_data': { monitor, status: 'no_data', previous_status: 'up', reason: 'no node reported for 2 rounds in a row (0 placed)', failing_nodes: [], changed_at: when },
  'monitor.paused': { monitor, status: 'paused', changed_at: when },
  'monitor.resumed': { monitor, status: 'active', changed_at: when },
  'alert.firing': { alert_event: { id: 'ae_1', monitor_id: monitor.id, policy_id: 'ap_1', status: 'firing', started_at: when, acknowledged_at: null, acknowledged_by: null, resolved_at: null, metadata: null } },
  'alert.acknowledged': { alert_event: { id: 'ae_1', monitor_id: monitor.id, policy_id: 'ap_1', status: 'acknowledged', started_at: when, acknowledged_at: when, acknowledged_by: 'u_1', resolved_at: null, metadata: {} } },
  'alert.resolved': { alert_event: { id: 'ae_1', monitor_id: monitor.id, policy_id: 'ap_1', status: 'resolved', started_at: when, acknowledged_at: null, acknowledged_by: null, resolved_at: when, metadata: null } },
  'node.online': { node: { id: 'n_01jd3k6w9z4q8r2t7v5x1y3b6c', name: 'fra-1', country: 'DE', region: null, city: null, asn: 64500, provider: null }, status: 'online', changed_at: when },
  'node.offline': { node: { id: 'n_01jd3k6w9z4q8r2t7v5x1y3b6c', name: 'fra-1', country: null, region: null, city: null, asn: null, provider: null }, status: 'offline', changed_at: when },
  'probe.completed': { task_id: 'pt_01jd3k6w9z4q8r2t7v5x1y3b6c', task_ids: ['pt_01jd3k6w9z4q8r2t7v5x1y3b6c'], probe_type: 'http', target: 'https://x.example', status: 'completed', success_count: 1, fail_count: 0, created_at: when, completed_at: when },
  'heartbeat.missed': { monitor, last_ping_at: null, expected_at: when },
  'ssl.expiring': { monitor, host: 'shop.example', subject: 'CN=shop.example', issuer: null, expires_at: when, days_left: 7 },
  'domain.expiring': { monitor, domain: 'shop.example', registrar: null, expires_at: when, days_left: 30 },
  'certificate.expiring': { certificate: { id: 42, order_id: 7, sans: ['shop.example', '*.shop.example'], issuer: 'CN=R11, O=Let\'s Encrypt, C=US', serial_hex: '04a1' }, expires_at: when, days_left: 20 },
  'webhook.ping': { endpoint_id: 'we_01jd3k6w9z4q8r2t7v5x1y3b6c', message: 'hello' },
};

t.test('every event of the catalog has a schema, and an example of each parses in its envelope', async (t) => {
  t.same(Object.keys(EXAMPLES).sort(), [...EVENT_TYPES].sort(), 'an example per event');
  for (const type of EVENT_TYPES) {
    t.ok(parseEventData(type, EXAMPLES[type]).ok, type);
    t.ok(eventEnvelopeSchema(type).safeParse({ id: 'evt_01jd3k6w9z4q8r2t7v5x1y3b6c', type, timestamp: when, data: EXAMPLES[type] }).success, `${type} envelope`);
    t.ok(EVENT_CATALOG[type].description.length > 10);
  }
});

t.test('bad data is refused with a readable error; the ping is not subscribable', async (t) => {
  const r = parseEventData('node.online', { node: { id: 'x' } });
  t.notOk(r.ok);
  if (!r.ok) t.match(r.error, /node/);
  t.notOk(parseEventData('nope' as never, {}).ok);
  t.notOk((SUBSCRIBABLE_EVENTS as readonly string[]).includes('webhook.ping'));
  t.ok((SUBSCRIBABLE_EVENTS as readonly string[]).includes('*'));
  t.equal(SUBSCRIBABLE_EVENTS.length, 17, '16 events and *');
});
