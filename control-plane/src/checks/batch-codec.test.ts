import t from 'tap';
import binding from 'zstd-napi/binding.js';
import { BATCH_SPAN_MS, decodeDetails, decodeDirectory, encodeBatch, type BatchCheck } from './batch-codec.js';
import { encodeOutput, OUTPUT_DICTIONARY_V2 } from './output-codec.js';
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
  t.ok(b.data.length / checks.length < 30, `data ${(b.data.length / checks.length).toFixed(1)} bytes a check: keys written once a batch`);
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
  t.throws(() => decodeDetails(b.data, 11, [0]), /damaged batch data: 11 lines for 11 checks/);
  t.throws(() => decodeDetails(Buffer.of(2, 1, 2, 3), 1, [0]), 'a frame that does not decompress');
  t.throws(() => decodeDetails(Buffer.of(3, ...b.data.subarray(1)), 10, [0]), /unknown batch data format 3/);
  t.throws(() => decodeDetails(lineFormat(['[0,1,null,null,null,null]']), 2, [0]), /damaged batch data: 1 lines for 2 checks/);
  const shaped = (check: string) => lineFormat(['[{"rtt_ms":0}]', check], 2);
  t.same(decodeDetails(shaped('[0,1,null,null,0,1,12.5]'), 1, [0])[0]!.output, { rtt_ms: 12.5 }, 'format 2 by hand');
  t.throws(() => decodeDetails(shaped('[0,1,null,null,0,2,12.5]'), 1, [0]), /damaged batch data: shape 2 of 1/, 'a shape not in the table');
  t.throws(() => decodeDetails(shaped('[0,1,null,null,0,1]'), 1, [0]), /damaged batch data: shape 1 of 1/, 'too few leaves');
  t.throws(() => decodeDetails(shaped('[0,1,null,null,0,1,12.5,7]'), 1, [0]), /1 values left over/, 'too many');
  t.throws(() => decodeDetails(lineFormat(['{}', '[0,1,null,null,0,0]'], 2), 1, [0]), /no table of shapes/);
  t.throws(() => decodeDetails(shaped('{"rtt_ms":1}'), 1, [0]), /check 0 is not a list/);
  t.throws(() => decodeDetails(b.data, 10, [10]), RangeError);
  t.throws(() => decodeDetails(b.data, 10, [4, 2]), RangeError, 'positions must ascend');
});

/** `lines` compressed as a batch's data of `format` (1: one JSON line per check, as format 1 wrote it). */
function lineFormat(lines: string[], format = 1): Buffer {
  const cctx = new binding.CCtx();
  cctx.setParameter(binding.CParameter.dictIDFlag, 0);
  cctx.loadDictionary(OUTPUT_DICTIONARY_V2);
  const text = Buffer.from(lines.join('\n'));
  const out = Buffer.alloc(binding.compressBound(text.length));
  return Buffer.concat([Buffer.of(format), out.subarray(0, cctx.compress2(out, text))]);
}

t.test('documents of any shape come back as they went in, key order and all', async (t) => {
  const outputs: unknown[] = [
    { resolved_address: '198.18.1.10', packets: [{ seq: 0, rtt_ms: 1.5, ttl: 57 }], nested: { a: [1, 'x', true, null, { b: -2.5e-7 }] } },
    { resolved_address: '198.18.1.11', packets: [{ seq: 0, rtt_ms: 2.25, ttl: 58 }], nested: { a: [3, 'y,z"\n', false, null, { b: 1e21 }] } },
    { '200': 'integer-like keys first', zeta: 1, alpha: '' },
    JSON.parse('{"__proto__": {"polluted": 1}, "ok": "ünïcødé ✓"}'),
    { packets: [] }, {}, [], 'a string output', 42, true, null,
    { resolved_address: '198.18.1.12', packets: [{ seq: 0, rtt_ms: 3, ttl: 59 }, { seq: 1, rtt_ms: 4, ttl: 59 }] },
  ];
  const [c] = minute(1);
  const checks = outputs.map((output, i) => ({ ...c!, scheduled_ms: at + i, output, assertions: i % 3 === 0 ? [{ source: 'status_code', passed: i === 3, actual: i }] : null }));
  const b = encodeBatch(checks);
  const back = decodeDetails(b.data, checks.length, checks.map((_, i) => i));
  t.same(back.map((d) => d.output), outputs);
  t.same(back.map((d) => d.output === null ? null : JSON.stringify(d.output)), outputs.map((o) => o === null ? null : JSON.stringify(o)), 'the same JSON text: key order kept');
  t.same(back.map((d) => d.assertions), checks.map((x) => x.assertions));
  t.equal(({} as Record<string, unknown>)['polluted'], undefined, 'a __proto__ key stays an own key');
  t.ok(Object.hasOwn(back[3]!.output as object, '__proto__'));
  t.same(decodeDetails(b.data, checks.length, [1, 11]).map((d) => d.output), [outputs[1], outputs[11]], 'only the documents asked');
});

t.test('data written as lines (format 1) is still read', async (t) => {
  const lines = ['[3,3050,null,null,null,{"rtt_avg_ms":12.5}]', '[4,5000,"timeout","no echo reply",[{"source":"rtt_avg_ms","passed":false}],null]'];
  const data = lineFormat(lines);
  t.same(decodeDetails(data, 2, [0, 1]), [
    { start_offset_ms: 3, duration_ms: 3050, error_class: null, error: null, assertions: null, output: { rtt_avg_ms: 12.5 } },
    { start_offset_ms: 4, duration_ms: 5000, error_class: 'timeout', error: 'no echo reply', assertions: [{ source: 'rtt_avg_ms', passed: false }], output: null },
  ]);
  t.same(decodeDetails(data, 2, [1]).map((d) => d.error), ['no echo reply']);
});

t.test('a document that nearly has the shape before it keeps its own', async (t) => {
  const outputs: unknown[] = [
    { a: 1, b: 'x' }, { a: '1', b: 'x' }, { b: 'x', a: 1 }, { a: 1, b: 'x', c: null }, { a: 1, b: undefined }, { a: 1, b: ['x'] },
    { a: 1, b: 'x' }, { a: 1, b: 'y', c: false }, { a: 1, b: 'z', c: true }, [1, undefined, 'x'], [1, null, 'x'], { a: 1, b: 'x' },
  ];
  const [c] = minute(1);
  const checks = outputs.map((output, i) => ({ ...c!, scheduled_ms: at + i, output, assertions: i % 2 === 0 ? [{ passed: i > 4 }] : null }));
  const back = decodeDetails(encodeBatch(checks).data, checks.length, checks.map((_, i) => i));
  t.same(back.map((d) => JSON.stringify(d.output)), outputs.map((o) => JSON.stringify(o)), 'as JSON would write each');
  t.same(back.map((d) => d.assertions), checks.map((x) => x.assertions));
});
