import t from 'tap';
import { newId } from '../ids.js';
import { parseNodeMessage, parseServerMessage } from '../parse.js';
import { closeCodeInfo, isFatalClose, CLOSE_CODES } from './close-codes.js';
import { resultEnvelopeSchema } from './messages.js';

const node_id = newId('node');
const task_id = newId('probe_task');

t.test('node messages: the documented examples parse', async (t) => {
  const frames = [
    { type: 'enroll', protocol_version: 1, agent_version: '0.1.0', hostname: 'probe-1' },
    { type: 'hello', protocol_version: 1, agent_version: '0.1.0', node_id, outbox: { pending: 12, dropped_total: 0 } },
    { type: 'heartbeat', sent_at: 1795000000000 },
    { type: 'task.ack', task_id, accepted: false, reason: 'queue full (256 tasks)' },
    { type: 'result.batch', batch_id: 17, results: [{ anything: 'validated one by one' }] },
    { type: 'outbox.stats', pending: 120, dropped_total: 3, oldest_pending_at: '2026-11-22T09:59:00.000Z' },
    { type: 'assignments.ack', version: 42 },
  ];
  for (const f of frames) {
    const r = parseNodeMessage(JSON.stringify(f));
    t.ok(r.ok, `${f.type}: ${r.ok ? '' : r.error}`);
  }
  const hello = parseNodeMessage(JSON.stringify(frames[1]));
  t.ok(hello.ok && hello.value.type === 'hello' && hello.value.capabilities.length === 5, 'capabilities default to all types');
});

t.test('server messages: the documented examples parse', async (t) => {
  const frames = [
    { type: 'welcome', protocol_version: 1, node_id, node_name: 'probe-1', heartbeat_interval_ms: 10000, server_time: '2026-11-22T10:00:00.000Z', credential: null },
    { type: 'task.run', task_id, timeout_ms: 10000, check: { type: 'ping', target: '198.18.1.10', params: { count: 4, timeout_ms: 5000, interval_ms: 1000, ip_version: 'auto' } } },
    { type: 'task.cancel', task_id },
    { type: 'result.ack', batch_id: 17, result_ids: [newId('result')] },
    { type: 'assignments.full', version: 42, assignments: [{ monitor_id: newId('monitor'), interval_s: 60, check: { type: 'http', target: 'https://example.com', params: {} } }] },
    { type: 'assignments.delta', from_version: 42, version: 43, upsert: [], remove: [newId('monitor')] },
    { type: 'error', code: 'VALIDATION_FAILED', message: 'bad', ref: '17' },
  ];
  for (const f of frames) {
    const r = parseServerMessage(JSON.stringify(f));
    t.ok(r.ok, `${f.type}: ${r.ok ? '' : r.error}`);
  }
  const full = parseServerMessage(JSON.stringify(frames[4]));
  t.ok(full.ok && full.value.type === 'assignments.full' && full.value.assignments[0]?.check.type === 'http'
    && full.value.assignments[0].check.params.method === 'GET', 'check params get their defaults');
});

t.test('wrong shapes are rejected with a clear message', async (t) => {
  const cases: Array<[string | Buffer, RegExp]> = [
    ['not json', /not valid JSON/],
    [JSON.stringify({ type: 'launch_missiles' }), /type/],
    [JSON.stringify({ type: 'hello', protocol_version: 1, agent_version: '1', node_id: 'n_bad' }), /node_id: must be a node id/],
    [JSON.stringify({ type: 'task.ack', task_id: 'pt_x', accepted: true }), /task_id/],
    [JSON.stringify({ type: 'result.batch', batch_id: 1, results: [] }), /results/],
    [Buffer.alloc(1024 * 1024 + 1, 0x20), /exceeds/],
  ];
  for (const [frame, message] of cases) {
    const r = parseNodeMessage(frame);
    t.notOk(r.ok);
    if (!r.ok) t.match(r.error, message);
  }
  const run = parseServerMessage(JSON.stringify({ type: 'task.run', task_id, timeout_ms: 10000, check: { type: 'ping', target: 'x', params: { count: 99 } } }));
  t.notOk(run.ok);
  if (!run.ok) t.match(run.error, /check\.params\.count/);
});

t.test('result envelopes are typed per probe type and need exactly one owner', async (t) => {
  const base = {
    result_id: newId('result'), task_id, monitor_id: null, type: 'tcp', started_at: '2026-11-22T10:00:00.000Z',
    finished_at: '2026-11-22T10:00:00.004Z', success: true, error: null, error_class: null,
    output: { resolved_address: '198.18.1.10', port: 443, connect_ms: 0.4, state: 'open' },
  };
  t.ok(resultEnvelopeSchema.safeParse(base).success);
  t.notOk(resultEnvelopeSchema.safeParse({ ...base, output: { ...base.output, state: 'maybe' } }).success, 'output checked against its type');
  t.notOk(resultEnvelopeSchema.safeParse({ ...base, monitor_id: newId('monitor') }).success, 'both owners set');
  t.notOk(resultEnvelopeSchema.safeParse({ ...base, task_id: null }).success, 'no owner');
  t.ok(resultEnvelopeSchema.safeParse({ ...base, success: false, error: 'boom', error_class: 'internal', output: null }).success);
});

t.test('close codes are in 4000-4099 and classified', async (t) => {
  for (const info of Object.values(CLOSE_CODES)) t.ok(info.code >= 4000 && info.code <= 4099);
  t.equal(new Set(Object.values(CLOSE_CODES).map((c) => c.code)).size, Object.keys(CLOSE_CODES).length, 'codes unique');
  t.ok(isFatalClose(CLOSE_CODES.credential_invalid.code));
  t.notOk(isFatalClose(CLOSE_CODES.server_shutdown.code));
  t.notOk(isFatalClose(1006), 'abnormal closure is transient');
  t.equal(closeCodeInfo(4005)?.name, 'unsupported_version');
});
