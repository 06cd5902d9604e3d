import { createHash } from 'node:crypto';
import t from 'tap';
import { decodeOutput, encodeOutput, OUTPUT_DICTIONARY_V1 } from './output-codec.js';
import { httpResult, pingResult } from './test-support.js';

t.test('format 1\'s dictionary never changes: stored outputs depend on its exact bytes', async (t) => {
  t.equal(createHash('sha256').update(OUTPUT_DICTIONARY_V1).digest('hex'), '39991144cc01ebacf29b9cdaa1385ad6488e02200071c008a09d41102af6d928');
});

t.test('outputs round-trip, compressed to a fraction of their JSON', async (t) => {
  const ping = pingResult('m_x', new Date().toISOString(), 31.257).output;
  const http = httpResult('m_x', new Date().toISOString(), { response_ms: 93 }).output;
  for (const [name, o, most] of [['ping', ping, 0.3], ['http', http, 0.3]] as const) {
    const stored = encodeOutput(o);
    t.equal(stored[0], 1, `${name}: format 1`);
    t.ok(stored.length < JSON.stringify(o).length * most, `${name}: ${JSON.stringify(o).length} → ${stored.length} bytes`);
    t.same(decodeOutput(stored), o);
  }
  const odd = { 'ключ': 'значение ✓', n: [1, 2.5, null], deep: { a: { b: 'c' } } };
  t.same(decodeOutput(encodeOutput(odd)), odd, 'any JSON');
  t.same([...encodeOutput({ a: 1 }).subarray(0, 1)], [0], 'format 0 when compressing does not pay');
  t.same(decodeOutput(encodeOutput({ a: 1 })), { a: 1 });
  t.throws(() => decodeOutput(Buffer.from([7, 1, 2])), /unknown stored output format 7/);
});
