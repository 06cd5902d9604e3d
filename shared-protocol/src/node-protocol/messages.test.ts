import t from 'tap';
import { newId } from '../ids.js';
import type { DnsOutput } from '../probe/outputs.js';
import { parseNodeMessage, parseServerMessage } from '../parse.js';
import { closeCodeInfo, isFatalClose, CLOSE_CODES } from './close-codes.js';
import { sanitizedOnce } from '../probe/sanitize.js';
import { clearedResultEnvelopeSchema, EARLIEST_RESULT_AT, parseBatchResults, resultEnvelopeSchema, resultEnvelopeSchemaFor } from './messages.js';

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
    { type: 'assignments.full', version: 42, assignments: [{ monitor_id: newId('monitor'), interval_s: 60, check: { type: 'http', target: 'https://example.com', config: {} } }] },
    { type: 'assignments.delta', from_version: 42, version: 43, upsert: [], remove: [newId('monitor')] },
    { type: 'error', code: 'VALIDATION_FAILED', message: 'bad', ref: '17' },
  ];
  for (const f of frames) {
    const r = parseServerMessage(JSON.stringify(f));
    t.ok(r.ok, `${f.type}: ${r.ok ? '' : r.error}`);
  }
  const full = parseServerMessage(JSON.stringify(frames[4]));
  t.ok(full.ok && full.value.type === 'assignments.full' && full.value.assignments[0]?.check.type === 'http'
    && full.value.assignments[0].check.config.method === 'GET', 'check config gets its defaults');
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
  const parsed = resultEnvelopeSchema.parse({ ...base, success: false, error: 'refused \u0000 \ud800', error_class: 'refused', output: null });
  t.equal(parsed.error, 'refused \ufffd \ufffd', 'strings sanitised on parsing');
});

t.test('resultEnvelopeSchemaFor: a frame that cannot hold unstorable text is not walked, and parses the same', async (t) => {
  const base = {
    result_id: newId('result'), task_id, monitor_id: null, type: 'tcp', started_at: '2026-11-22T10:00:00.000Z',
    finished_at: '2026-11-22T10:00:00.004Z', success: false, error: 'refused by banner é', error_class: 'refused',
    output: { resolved_address: '198.18.1.10', port: 443, connect_ms: 0.4, state: 'open' },
  };
  const clean = JSON.stringify({ type: 'result.batch', batch_id: 1, results: [base] });
  t.equal(resultEnvelopeSchemaFor(clean), clearedResultEnvelopeSchema);
  t.equal(resultEnvelopeSchemaFor(Buffer.from(clean)), clearedResultEnvelopeSchema);
  const cleared = clearedResultEnvelopeSchema.parse(JSON.parse(clean).results[0]);
  t.same(cleared, resultEnvelopeSchema.parse(JSON.parse(clean).results[0]), 'the same result as the walking schema');
  t.notOk(clearedResultEnvelopeSchema.safeParse({ ...base, task_id: null }).success, 'checked like resultEnvelopeSchema');

  const dirty = JSON.stringify({ type: 'result.batch', batch_id: 2, results: [{ ...base, error: 'refused \u0000 \ud800' }] });
  t.equal(resultEnvelopeSchemaFor(dirty), resultEnvelopeSchema);
  t.equal(resultEnvelopeSchemaFor(Buffer.from(dirty)), resultEnvelopeSchema);
  t.equal(resultEnvelopeSchemaFor(dirty).parse(JSON.parse(dirty).results[0]).error, 'refused \ufffd \ufffd');
});

t.test('parseBatchResults: valid results in order, invalid ones by index, and the batch known sanitised', async (t) => {
  const base = {
    result_id: newId('result'), task_id, monitor_id: null, type: 'tcp', started_at: '2026-11-22T10:00:00.000Z',
    finished_at: '2026-11-22T10:00:00.004Z', success: false, error: 'refused', error_class: 'refused',
    output: { resolved_address: '198.18.1.10', port: 443, connect_ms: 0.4, state: 'open' },
  };
  const second = { ...base, result_id: newId('result'), error: 'refused \u0000 \ud800' };
  const items = [base, { ...base, task_id: null }, second];
  const frame = Buffer.from(JSON.stringify({ type: 'result.batch', batch_id: 3, results: items }));
  const { valid, invalid } = parseBatchResults(frame, JSON.parse(frame.toString()).results);
  t.same(valid.map((r) => r.result_id), [base.result_id, second.result_id]);
  t.equal(valid[1]!.error, 'refused \ufffd \ufffd', 'sanitised: the frame held escapes');
  t.same(invalid.map((i) => i.index), [1]);
  t.match(invalid[0]!.error.issues[0]!.message, /exactly one of task_id and monitor_id/);
  t.equal(sanitizedOnce(valid), valid, 'the batch is known sanitised: the sink does not walk it again');
  t.same(sanitizedOnce([{ ...base, error: 'x\u0000' }])[0]!.error, 'x\ufffd', 'an array not built by parseBatchResults is walked');
});

t.test('close codes are in 4000-4099 and classified', async (t) => {
  for (const info of Object.values(CLOSE_CODES)) t.ok(info.code >= 4000 && info.code <= 4099);
  t.equal(new Set(Object.values(CLOSE_CODES).map((c) => c.code)).size, Object.keys(CLOSE_CODES).length, 'codes unique');
  t.ok(isFatalClose(CLOSE_CODES.credential_invalid.code));
  t.notOk(isFatalClose(CLOSE_CODES.server_shutdown.code));
  t.notOk(isFatalClose(1006), 'abnormal closure is transient');
  t.equal(closeCodeInfo(4005)?.name, 'unsupported_version');
});

t.test('task.run carries the requester policy; absent means public only', async (t) => {
  const check = { type: 'tcp', target: '198.18.1.10:443', params: {} };
  const without = parseServerMessage(JSON.stringify({ type: 'task.run', task_id, timeout_ms: 5000, check }));
  t.ok(without.ok && without.value.type === 'task.run');
  if (without.ok && without.value.type === 'task.run') t.same(without.value.policy, { allow_private: false, allow_cidrs: [] });
  const owner = parseServerMessage(JSON.stringify({ type: 'task.run', task_id, timeout_ms: 5000, policy: { allow_private: true, allow_cidrs: ['198.18.0.0/15'] }, check }));
  t.ok(owner.ok && owner.value.type === 'task.run' && owner.value.policy.allow_private);
  const bad = parseServerMessage(JSON.stringify({ type: 'task.run', task_id, timeout_ms: 5000, policy: { allow_private: false, allow_cidrs: ['nope'] }, check }));
  t.notOk(bad.ok, 'a malformed CIDR is refused');
  const full = parseServerMessage(JSON.stringify({ type: 'assignments.full', version: 1, assignments: [{ monitor_id: newId('monitor'), interval_s: 60, check: { type: 'tcp', target: '198.18.1.10:443', config: {} } }] }));
  t.ok(full.ok && full.value.type === 'assignments.full' && full.value.assignments[0]!.policy.allow_private === false, 'assignments default to public only');
});

t.test('absurd measurements and times are refused; unstorable text is sanitised', async (t) => {
  const now = new Date();
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const base = {
    result_id: newId('result'), task_id, monitor_id: null, started_at: at(-1000), finished_at: at(0), success: true, error: null, error_class: null,
  };
  const ping = {
    ...base, type: 'ping',
    output: {
      resolved_address: '198.18.1.10', packets_sent: 4, packets_received: 3, packet_loss: 25, rtt_min_ms: 0.1, rtt_avg_ms: 0.2, rtt_max_ms: 0.4, rtt_stddev_ms: 0.1,
      packets: [{ seq: 1, rtt_ms: 0.1, ttl: 64 }, { seq: 2, rtt_ms: 0.4, ttl: 64 }, { seq: 3, rtt_ms: 0.1, ttl: 64 }, { seq: 4, rtt_ms: null, ttl: null }],
    },
  };
  t.ok(resultEnvelopeSchema.safeParse(ping).success, 'a sane ping result');
  const bad: Array<[string, Record<string, unknown>]> = [
    ['negative rtt', { ...ping, output: { ...ping.output, rtt_min_ms: -5 } }],
    ['negative packet rtt', { ...ping, output: { ...ping.output, packets: [{ seq: 1, rtt_ms: -1, ttl: 64 }] } }],
    ['received > sent', { ...ping, output: { ...ping.output, packets_received: 9, packet_loss: 0 } }],
    ['loss not matching the counts', { ...ping, output: { ...ping.output, packet_loss: 0 } }],
    ['min > max', { ...ping, output: { ...ping.output, rtt_min_ms: 5, rtt_max_ms: 1 } }],
    ['stats without replies', { ...ping, output: { ...ping.output, packets_received: 0, packet_loss: 100, packets: [] } }],
    ['an hour-long rtt', { ...ping, output: { ...ping.output, rtt_max_ms: 3_600_000 } }],
    ['1970 timestamps', { ...ping, started_at: '1970-01-01T00:00:00.000Z', finished_at: '1970-01-01T00:00:01.000Z' }],
    ['before the earliest time', { ...ping, started_at: new Date(Date.parse(EARLIEST_RESULT_AT) - 1).toISOString() }],
    ['finished before started', { ...ping, started_at: at(0), finished_at: at(-1000) }],
    ['a week in the future', { ...ping, started_at: at(7 * 86_400_000), finished_at: at(7 * 86_400_000 + 1) }],
    ['negative http phase', { ...base, type: 'http', output: { final_url: 'http://x/', status_code: 200, response_ms: 1, response_size: 0, headers: {}, timing: { dns_ms: -1, tcp_ms: 0, tls_ms: 0, ttfb_ms: 0, download_ms: 0 }, tls: null, certificate: null, redirects: [], resolved_address: null, body_truncated: false } }],
    ['status 42', { ...base, type: 'http', output: { final_url: 'http://x/', status_code: 42, response_ms: 1, response_size: 0, headers: {}, timing: null, tls: null, certificate: null, redirects: [], resolved_address: null, body_truncated: false } }],
    ['negative connect time', { ...base, type: 'tcp', output: { resolved_address: '198.18.1.10', port: 443, connect_ms: -0.5, state: 'open' } }],
    ['hop 0', { ...base, type: 'traceroute', output: { resolved_address: null, protocol: 'icmp', destination_reached: false, hops: [{ hop: 0, address: null, rtts_ms: [null] }] } }],
    ['negative dns ttl', { ...base, type: 'dns', output: { server: '1.1.1.1:53', protocol: 'udp', rcode: 'NOERROR', query_ms: 1, truncated: false, answers: [{ name: 'a', type: 'A', ttl: -1, value: '1.2.3.4' }], authorities: [] } }],
  ];
  for (const [what, result] of bad) t.notOk(resultEnvelopeSchema.safeParse(result).success, what);

  const dns = {
    ...base, type: 'dns',
    output: { server: '1.1.1.1:53', protocol: 'udp', rcode: 'NOERROR', query_ms: 1, truncated: false, answers: [{ name: 'a\u0000.test', type: 'TXT', ttl: 60, value: '"x\u0000y" "\ud800"' }], authorities: [] },
  };
  const parsed = resultEnvelopeSchema.safeParse(JSON.parse(JSON.stringify(dns))); // as it arrives in a frame
  t.ok(parsed.success, 'a DNS answer with NUL and a lone surrogate parses');
  const answer = parsed.success ? (parsed.data.output as DnsOutput).answers[0]! : null;
  t.equal(answer?.value, '"x\ufffdy" "\ufffd"');
  t.equal(answer?.name, 'a\ufffd.test');
});

t.test('assignments: each is validated on its own; a bad one is refused alone, the message kept', async (t) => {
  const good = { monitor_id: newId('monitor'), interval_s: 60, check: { type: 'tcp', target: '198.18.1.10:443', config: {} } };
  const bad = { monitor_id: newId('monitor'), interval_s: 60, check: { type: 'llm_endpoint', target: 'https://198.18.1.10/', config: { expected_fields: ["$[?match(@.a,'x')]"] } } };
  const header = { monitor_id: newId('monitor'), interval_s: 60, check: { type: 'http', target: 'http://198.18.1.10/', config: { headers: { 'X Foo:': 'a\r\nB: 1' } } } };
  const full = parseServerMessage(JSON.stringify({ type: 'assignments.full', version: 7, assignments: [good, bad, 'junk', header] }));
  t.ok(full.ok, 'the message parses');
  if (!full.ok || full.value.type !== 'assignments.full') return;
  t.same(full.value.assignments.map((a) => a.monitor_id), [good.monitor_id], 'the valid assignment is kept, with its defaults');
  t.equal(full.value.assignments[0]!.policy.allow_private, false);
  t.match(full.value.refused, [
    { index: 1, monitor_id: bad.monitor_id, issues: [{ path: 'assignments[1].check.config.expected_fields[0]', message: /match\(\) is not supported/ }] },
    { index: 2, monitor_id: null, issues: [{ path: 'assignments[2]' }] },
    { index: 3, monitor_id: header.monitor_id, issues: [{ path: 'assignments[3].check.config.headers.X Foo:' }] },
  ], 'each refused one with its monitor id and field path');
  t.equal(full.value.refused!.length, 3);

  const delta = parseServerMessage(JSON.stringify({ type: 'assignments.delta', from_version: 7, version: 8, upsert: [{ ...good, check: { type: 'teleport', target: 'x', config: {} } }, bad], remove: [] }));
  t.ok(delta.ok && delta.value.type === 'assignments.delta');
  if (delta.ok && delta.value.type === 'assignments.delta') {
    t.same(delta.value.upsert, []);
    t.match(delta.value.refused, [{ index: 0, monitor_id: good.monitor_id, issues: [{ path: 'upsert[0].check.type' }] }, { index: 1, monitor_id: bad.monitor_id }]);
  }

  // The wire shape is unchanged: `refused` is the parser's, never read from a frame.
  const clean = parseServerMessage(JSON.stringify({ type: 'assignments.full', version: 1, assignments: [good], refused: [{ index: 0 }] }));
  t.ok(clean.ok && clean.value.type === 'assignments.full' && clean.value.refused === undefined && clean.value.assignments.length === 1, 'no refused field when all are valid');
  // The envelope itself is still checked.
  const envelope = parseServerMessage(JSON.stringify({ type: 'assignments.delta', from_version: 1, version: 2, upsert: {}, remove: ['m_bad'] }));
  t.notOk(envelope.ok);
  if (!envelope.ok) t.match(envelope.error, /upsert: .*remove\[0\]/);
});
