import t from 'tap';
import { BATCH_SPAN_MS, decodeDetails, decodeDirectory, encodeBatch, type BatchCheck } from './batch-codec.js';
import { encodeOutput } from './output-codec.js';
import { httpResult, pingResult } from './test-support.js';

const at = Date.parse('2026-12-01T10:00:00.000Z');

/** A minute of one node's checks of `n` series, each at its own second, as a node batch holds them. */
function minute(n: number): BatchCheck[] {
  return Array.from({ length: n }, (_, i) => {
    const scheduled_ms = at + (i % 60) * 1000 + i;
    const r = pingResult('m_x', new Date(scheduled_ms).toISOString(), 10 + (i % 17) * 1.37);
    return {
      series_id: 1000 + i, scheduled_ms, start_offset_ms: i % 5, duration_ms: 3050, response_ms: Math.fround((r.output as { rtt_avg_ms: number }).rtt_avg_ms),
      success: true, error_class: null, error: null, assertions: [], output: r.output,
    };
  });
}

t.test('a batch round-trips: directory without decompressing, details of the positions asked', async (t) => {
  const checks = minute(100);
  checks[3] = { ...checks[3]!, success: false, response_ms: null, error_class: 'timeout', error: 'no echo reply\nafter 5000 ms ✓', output: null };
  checks[7] = { ...checks[7]!, scheduled_ms: at - 4 * 3_600_000, assertions: [{ source: 'rtt_avg_ms', passed: false }] }; // late: four hours back
  const http = httpResult('m_y', new Date(at).toISOString(), { response_ms: 93 });
  checks[99] = { ...checks[99]!, output: http.output, response_ms: 93 };
  const b = encodeBatch(checks);
  t.equal(b.first_ms, at - 4 * 3_600_000);
  t.equal(b.last_ms, Math.max(...checks.map((c) => c.scheduled_ms)));
  t.same(b.series, checks.map((c) => c.series_id));
  const dir = decodeDirectory(b.first_ms, checks.length, b.dir);
  t.same(dir.scheduled_ms, checks.map((c) => c.scheduled_ms));
  t.same(dir.response_ms, checks.map((c) => c.response_ms));
  t.same(dir.success, checks.map((c) => c.success));
  const all = decodeDetails(b.data, checks.length, checks.map((_, i) => i));
  t.same(all, checks.map(({ start_offset_ms, duration_ms, error_class, error, assertions, output }) => ({ start_offset_ms, duration_ms, error_class, error, assertions, output })));
  t.same(decodeDetails(b.data, checks.length, [3, 99]).map((d) => d.error ?? d.output), ['no echo reply\nafter 5000 ms ✓', http.output], 'only the lines asked, in order');
  t.same(decodeDetails(b.data, checks.length, []), []);
});

t.test('a batch of pings takes a fraction of what each output compressed alone does', async (t) => {
  const checks = minute(100);
  const b = encodeBatch(checks);
  const alone = checks.reduce((n, c) => n + encodeOutput(c.output).length, 0);
  const batch = b.dir.length + b.data.length + 4 * checks.length;
  t.ok(batch < alone * 0.85, `${batch} bytes for the batch (directory, data, series ids) against ${alone} for the outputs alone`);
  t.equal(b.dir.length, 1 + checks.length * 7 + 13, `directory ${b.dir.length} bytes: 7 a check and the bitmap`);
});

t.test('one check; offsets up to the span a batch may have; response times kept as float32', async (t) => {
  const [c] = minute(1);
  const one = encodeBatch([{ ...c!, response_ms: 12.345678901 }]);
  t.same(decodeDirectory(one.first_ms, 1, one.dir), { scheduled_ms: [c!.scheduled_ms], response_ms: [Math.fround(12.345678901)], success: [true] });
  const far = encodeBatch([{ ...c!, scheduled_ms: at }, { ...c!, scheduled_ms: at + BATCH_SPAN_MS - 1 }]);
  t.same(decodeDirectory(far.first_ms, 2, far.dir).scheduled_ms, [at, at + BATCH_SPAN_MS - 1], 'the largest 3-byte offset');
  t.throws(() => encodeBatch([{ ...c!, scheduled_ms: at }, { ...c!, scheduled_ms: at + BATCH_SPAN_MS }]), RangeError, 'a batch spanning 2^24 ms is refused');
});

t.test('bad input is refused; a damaged row throws rather than reading wrong checks', async (t) => {
  const [c] = minute(1);
  t.throws(() => encodeBatch([]), RangeError);
  t.throws(() => encodeBatch([{ ...c!, series_id: 0 }]), /series id 0/);
  t.throws(() => encodeBatch([{ ...c!, scheduled_ms: 1.5 }]), /not an integer epoch ms/);
  const b = encodeBatch(minute(10));
  t.throws(() => decodeDirectory(b.first_ms, 11, b.dir), /damaged batch directory/, 'one check more than it holds');
  t.throws(() => decodeDirectory(b.first_ms, 9, b.dir), /damaged batch directory/, 'one check less');
  t.throws(() => decodeDirectory(b.first_ms, 10, Buffer.concat([b.dir, Buffer.of(0)])), /damaged batch directory/, 'trailing bytes');
  t.throws(() => decodeDirectory(b.first_ms, 10, Buffer.of(9, ...b.dir.subarray(1))), /unknown batch directory format 9/);
  t.throws(() => decodeDetails(b.data, 11, [0]), /damaged batch data: 10 lines for 11 checks/);
  t.throws(() => decodeDetails(Buffer.of(1, 1, 2, 3), 1, [0]), 'a frame that does not decompress');
  t.throws(() => decodeDetails(Buffer.of(2, ...b.data.subarray(1)), 10, [0]), /unknown batch data format 2/);
  t.throws(() => decodeDetails(b.data, 10, [10]), RangeError);
  t.throws(() => decodeDetails(b.data, 10, [4, 2]), RangeError, 'positions must ascend');
});
