import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { decodeOutput, encodeOutput, OUTPUT_DICTIONARY_V1, OUTPUT_DICTIONARY_V2 } from './output-codec.js';
import { httpResult, pingResult } from './test-support.js';

t.test('the dictionaries never change: stored outputs depend on their exact bytes', async (t) => {
  t.equal(createHash('sha256').update(OUTPUT_DICTIONARY_V1).digest('hex'), '39991144cc01ebacf29b9cdaa1385ad6488e02200071c008a09d41102af6d928');
  t.equal(createHash('sha256').update(OUTPUT_DICTIONARY_V2).digest('hex'), '3166bfceb24b75364b168552f41feee877794a69b3816a0461f07b8334371a88',
    'format 2 (control-plane/scripts/train-output-dictionary.ts made it: never replace the file)');
});

t.test('outputs round-trip, compressed to a fraction of their JSON', async (t) => {
  const ping = pingResult('m_x', new Date().toISOString(), 31.257).output;
  const http = httpResult('m_x', new Date().toISOString(), { response_ms: 93 }).output;
  for (const [name, o, most] of [['ping', ping, 0.3], ['http', http, 0.3]] as const) {
    const stored = encodeOutput(o);
    t.equal(stored[0], 2, `${name}: format 2`);
    t.ok(stored.length < JSON.stringify(o).length * most, `${name}: ${JSON.stringify(o).length} → ${stored.length} bytes`);
    t.same(decodeOutput(stored), o);
  }
  const odd = { 'ключ': 'значение ✓', n: [1, 2.5, null], deep: { a: { b: 'c' } } };
  t.same(decodeOutput(encodeOutput(odd)), odd, 'any JSON');
  t.same([...encodeOutput({ a: 1 }).subarray(0, 1)], [0], 'format 0 when compressing does not pay');
  t.same(decodeOutput(encodeOutput({ a: 1 })), { a: 1 });
  t.throws(() => decodeOutput(Buffer.from([7, 1, 2])), /unknown stored output format 7/);
});

t.test('stored format 1 and 2 rows still read (pinned bytes); long outputs compress', async (t) => {
  const stored = Buffer.from('01c31762867a860654093263033d6323d4303336d433039589c8a1666ca2676c414eb8191bea19999ae30d3963233d0bfc410775249eb083b90f117a00', 'hex');
  t.same(decodeOutput(stored), {
    resolved_address: '198.18.1.10', packets_sent: 4, packets_received: 4, packet_loss: 0, rtt_min_ms: 30.32, rtt_avg_ms: 31.656, rtt_max_ms: 34.383,
    rtt_stddev_ms: 0.52, packets: [{ seq: 0, rtt_ms: 31.257, ttl: 57 }, { seq: 1, rtt_ms: 32.82, ttl: 57 }, { seq: 2, rtt_ms: 30.32, ttl: 57 }, { seq: 3, rtt_ms: 34.383, ttl: 57 }],
  });
  t.same(decodeOutput(Buffer.from('020000ad0100834103f6ef287eca2c31a7ec36645e080ffc486838d29a00080a845cbc32415e8a2d91f832c1f647b3a47b85bc2f2213e3bb374602', 'hex')),
    decodeOutput(stored), 'the same output stored as format 2');
  t.throws(() => decodeOutput(Buffer.from('0200ffff', 'hex')), 'a damaged format 2 row throws');
  const long = { ...httpResult('m_x', new Date().toISOString(), { response_ms: 93 }).output, response_preview: 'lorem ipsum dolor sit amet '.repeat(200) };
  const packed = encodeOutput(long);
  t.equal(packed[0], 2, 'format 2');
  t.ok(packed.length < 400, `${JSON.stringify(long).length} bytes of JSON → ${packed.length}`);
  t.same(decodeOutput(packed), long);
  const huge = { body: randomBytes(300 * 1024).toString('base64') };
  const big = encodeOutput(huge);
  t.equal(big[0], 2, 'format 2');
  t.same(decodeOutput(big), huge, 'an output of more than 256 kB (past the decoding buffer) reads back whole');
});

t.test('the base64 encoder sends the bytes encodeOutput stores, whatever the size', async (t) => {
  const ping = pingResult('m_x', new Date().toISOString(), 31.257).output;
  // The bytes written for the pinned ping output of the test above (level 4, greedy, 6-byte
  // matches, no content size, checksum or dictionary id): a change of parameters shows here.
  t.equal(encodeOutput(decodeOutput(Buffer.from('020000ad0100834103f6ef287eca2c31a7ec36645e080ffc486838d29a00080a845cbc32415e8a2d91f832c1f647b3a47b85bc2f2213e3bb374602', 'hex'))).toString('hex'),
    '020000e50100c30104f69d5bc781854fd9da9c25e694d9900511fc486838d29a00080a845c967f7149748fab4948737c0d48a55e3771f65af755b331c015fe878925', 'a ping output is written with the parameters of its format (pinned bytes)');
  const outputs: Array<[string, unknown]> = [
    ['ping', ping], ['format 0', { a: 1 }], ['non-ASCII', { 'ключ': 'значение ✓'.repeat(3000) }],
    ['past the reused buffer', { body: randomBytes(100 * 1024).toString('base64') }], ['null', null],
  ];
  for (const [name, o] of outputs) t.same(decodeOutput(encodeOutput(o)), o, `${name}: reads back`);
  // Each call's answer is its own: the next call reuses the buffers, not the bytes already made.
  const a = encodeOutput(ping);
  const copy = Buffer.from(a);
  encodeOutput({ other: 'x'.repeat(500) });
  t.same(a, copy, 'an earlier answer is unchanged by a later call');
});
