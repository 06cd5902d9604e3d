import t from 'tap';
import { encodeOutput } from './output-codec.js';
import { decodeBlock, encodeBlock, type PackedCheck } from './pack-codec.js';

const HOUR = new Date('2026-11-20T10:00:00.000Z');

/** A check `i` minutes into the hour with `output` and `assertions`. */
const check = (i: number, output: unknown, assertions: unknown[] | null = [], extra: Partial<PackedCheck> = {}): PackedCheck => ({
  scheduled_at: new Date(HOUR.getTime() + i * 60_000 + 417), start_offset_ms: i % 3 === 0 ? -12 : 3, duration_ms: 3000 + i,
  response_ms: 12.5 + i / 7, success: i % 5 !== 0, error_class: i % 5 === 0 ? 'timeout' : null, error: i % 5 === 0 ? `no reply\nafter ${i} s "quoted"` : null,
  assertions, output, ...extra,
});

t.test('every field of every check comes back as it went in', async (t) => {
  const ping = (i: number) => ({ resolved_address: '198.18.1.10', packets_sent: 4, packets_received: 4, packet_loss: 0, rtt_min_ms: 11.9 + i / 1000,
    rtt_avg_ms: 12.345, rtt_max_ms: 1e21, rtt_stddev_ms: -0.5, packets: [{ seq: 0, rtt_ms: 12.1, ttl: 57 }, { seq: 1, rtt_ms: null, ttl: 57 }] });
  const checks = [
    check(0, ping(0)),
    check(1, ping(1), [{ type: 'status_code', op: 'eq', expected: 200, actual: 200, ok: true, detail: 'status_code 200 equals 200' }]),
    check(2, null, null, { response_ms: null }),
    check(3, { '1': 'a', b: { '__proto__': 'x', 'ü\n"': ['é', true, false, null, 0, ''] } }),
    check(4, 'a bare string'),
    check(5, 42),
    check(6, [], []),
    check(7, { kind: 'success', body: 'line one\nline two\u2028\u0000' }, null),
    check(59, ping(59), [], { scheduled_at: new Date(HOUR.getTime() + 3_599_999) }),
  ];
  const data = encodeBlock(HOUR, checks);
  t.equal(data[0], 1, 'format byte');
  t.same(decodeBlock(HOUR, data), checks);
  t.strictSame(JSON.stringify(decodeBlock(HOUR, data)), JSON.stringify(checks), 'key order and number text too');
  t.same(decodeBlock(HOUR, encodeBlock(HOUR, [])), [], 'an empty block');
  t.same(decodeBlock(HOUR, data, false), checks.map((c) => ({ ...c, output: null, assertions: null })), 'times, outcomes and response times alone');
});

t.test('checks outside the hour or out of order are the caller\'s bug', async (t) => {
  t.throws(() => encodeBlock(HOUR, [check(0, null, [], { scheduled_at: new Date(HOUR.getTime() - 1) })]));
  t.throws(() => encodeBlock(HOUR, [check(2, null), check(1, null)]));
  t.throws(() => encodeBlock(HOUR, [check(0, null, [], { scheduled_at: new Date(HOUR.getTime() + 3_600_000) })]));
  t.throws(() => decodeBlock(HOUR, Buffer.of(9, 1, 2)), /unknown check block format 9/);
});

t.test('an hour of one series\' ping checks packs far smaller than their stored outputs', async (t) => {
  const checks = Array.from({ length: 60 }, (_, i) => {
    const rtt = 10 + ((i * 7919) % 3000) / 100;
    const rtts = [rtt, rtt * 1.05, rtt * 0.97, rtt * 1.1].map((x) => Math.round(x * 1000) / 1000);
    return check(i, { resolved_address: '198.18.1.10', packets_sent: 4, packets_received: 4, packet_loss: 0, rtt_min_ms: Math.min(...rtts),
      rtt_avg_ms: Math.round((rtts.reduce((a, b) => a + b, 0) / 4) * 1000) / 1000, rtt_max_ms: Math.max(...rtts), rtt_stddev_ms: 0.52,
      packets: rtts.map((rtt_ms, seq) => ({ seq, rtt_ms, ttl: 57 })) }, [], { success: true, error: null, error_class: null });
  });
  const stored = checks.reduce((n, c) => n + encodeOutput(c.output).length, 0);
  const packed = encodeBlock(HOUR, checks).length;
  t.ok(packed * 2 < stored, `${packed} bytes packed, ${stored} bytes of stored outputs alone`);
  t.same(decodeBlock(HOUR, encodeBlock(HOUR, checks)), checks);
});

t.test('format 1 stays readable: a block stored by the first version decodes to its checks', async (t) => {
  // NEVER regenerate: stored blocks are read with this decoder for as long as they are kept.
  const stored = Buffer.from('AV2MwWrCQBCGd5PbXHwF+XOTsMlUBJtXsZKGZhHpmtjdVQzBWx+kDxVKjzl69gkkjV6E4R++b4Z/Fl6+Zd+FfRcGQdAlv8lfIoUcRorgfWJ/pBDyKqQV/KIWxHO1IKoOxhD8dqfrg8eIo6vqqdV709wlUwurXW2OusyLsrTaOWRADOt9Xhw3+c4hS2Psi49P7R2yVQunv/7d8HI/e2+Qped1jKr2emg4E/h1qXipWHGKJ4rmFKUU8ZA4vVUNHotptb4B', 'base64');
  const checks = [0, 1, 2].map((i) => ({
    scheduled_at: new Date(HOUR.getTime() + 17_000 + i * 60_000), start_offset_ms: 1, duration_ms: 3050 + i, response_ms: i === 2 ? null : 12.5 + i,
    success: i !== 1, error_class: i === 1 ? 'timeout' : null, error: i === 1 ? 'no reply' : null, assertions: i === 2 ? null : [],
    output: i === 1 ? null : { resolved_address: '198.18.1.10', rtt_avg_ms: 12.345 + i, packets: [{ seq: 0, rtt_ms: 12.1, ttl: 57 }], note: 'x\ny' },
  }));
  t.strictSame(decodeBlock(HOUR, stored), checks);
});
