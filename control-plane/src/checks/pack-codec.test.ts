import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import { encodeOutput } from './output-codec.js';
import { decodeBlock, encodeBlock, type PackedCheck } from './pack-codec.js';
import { BLOCK_DICTIONARY_V2 } from './pack-dictionary.js';

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
  t.equal(data[0], 2, 'format byte');
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

t.test('format 2 stays readable: its dictionary and its predictions never change', async (t) => {
  // NEVER regenerate either: stored blocks of format 2 decode only with these bytes and rules.
  t.equal(createHash('sha256').update(BLOCK_DICTIONARY_V2).digest('hex'), 'eb6d6aea7fff21a77782e4da8b0bc9784468182bf5c135d65ddafc4780d43ebf');
  const stored = Buffer.from('AstmedHC+OAKMwSxsLCw7JDfJb9Hfp88IyMDIyMjAxOYZmNgZGNgYGRiYCxiYGQBk2wgkimOfdcFRg4OJhaWhw8ZGBhAitkYWZikuBiZGIsYWRjZGIsYfzFOA0kJg8KfC0woleaBq6rEpJxUJS6EOETS09k3QAFThdHIirhhk1DRcyAhXysZWlroGVroGeoZGiih8ZQNcCNjLlVDLlVjMIIwjLDrNsLQaghSqwohwfpMFUy5DI30DM3MuQyNwRSIa2FuymXIFR0LAA==', 'base64');
  const ping = (i: number, rtts: Array<number | null>, avg: number, loss: number) => ({
    resolved_address: '198.18.1.10', packets_sent: rtts.length, packets_received: rtts.filter((x) => x !== null).length, packet_loss: loss,
    rtt_min_ms: Math.min(...rtts.filter((x) => x !== null)), rtt_avg_ms: avg, rtt_max_ms: Math.max(...rtts.filter((x) => x !== null)), rtt_stddev_ms: 0.25 + i / 100,
    packets: rtts.map((rtt_ms, k) => ({ seq: k + 1, rtt_ms, ttl: rtt_ms === null ? null : 57 })),
  });
  const outputs = [ping(0, [12.125, 12.5, 11.875], 12.167, 0), ping(1, [13.125, 13.5, 12.875], 13.167, 0), null, ping(3, [12.5, null, 13.25], 12.875, 33.33)];
  const checks = outputs.map((output, i) => ({
    scheduled_at: new Date(HOUR.getTime() + 17_000 + i * 60_000), start_offset_ms: 2, duration_ms: 2012 + i, response_ms: output ? output.rtt_avg_ms : null,
    success: i !== 2, error_class: i === 2 ? 'unreachable' : null, error: i === 2 ? 'ICMP unreachable' : null, assertions: i === 2 ? null : [], output,
  }));
  t.strictSame(decodeBlock(HOUR, stored), checks);
  t.strictSame(decodeBlock(HOUR, stored, false), checks.map((c) => ({ ...c, output: null, assertions: null })));
});

/** A seeded generator (Park-Miller): the same checks on every run. */
function random(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 16807) % 2147483647) / 2147483647;
}

/** A ping output as the node agent makes it (node-agent/src/probes/ping.ts), statistics from the unrounded round trips, packets lost at random. */
function agentPing(rnd: () => number, base_ms: number, jitter_ms: number, count = 4, loss = 0): Record<string, unknown> {
  const round3 = (x: number) => Math.round(x * 1000) / 1000;
  const raw = Array.from({ length: count }, () => (rnd() < loss ? null : base_ms + rnd() * jitter_ms));
  const got = raw.filter((x): x is number => x !== null);
  const avg = got.reduce((a, b) => a + b, 0) / got.length;
  const some = got.length > 0;
  return {
    resolved_address: '198.18.1.10', packets_sent: count, packets_received: got.length, packet_loss: Math.round(((count - got.length) / count) * 10000) / 100,
    rtt_min_ms: some ? round3(Math.min(...got)) : null, rtt_avg_ms: some ? round3(avg) : null, rtt_max_ms: some ? round3(Math.max(...got)) : null,
    rtt_stddev_ms: some ? round3(Math.sqrt(Math.max(0, got.reduce((a, b) => a + b * b, 0) / got.length - avg * avg))) : null,
    packets: raw.map((rtt, k) => ({ seq: k + 1, rtt_ms: rtt === null ? null : round3(rtt), ttl: rtt === null ? null : 57 })),
  };
}

t.test('any ping output comes back exactly: lost packets, nulls, odd and huge numbers, -0', async (t) => {
  const odd = [0.1 + 0.2, -0, 0, 1e21, 2 ** 53, 2 ** 50 - 1, -(2 ** 50) + 1, 5e-324, 1.7976931348623157e308, -3.5, 123456.789012, 1e-7, 0.000001];
  for (let seed = 1; seed <= 200; seed++) {
    const rnd = random(seed);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    // Per block, how often a statistic or a packet's rtt_ms is replaced by an odd value: derived
    // fields then disagree with their rules, predictions are huge, columns turn to text.
    const [odd_stats, odd_packets] = [pick([0, 0, 0.05]), pick([0, 0.05, 0.2])];
    const checks = Array.from({ length: 1 + Math.floor(rnd() * 60) }, (_, i) => {
      const output = agentPing(rnd, 1 + rnd() * 200, rnd() * 5, 1 + Math.floor(rnd() * 6), pick([0, 0, 0.1, 0.9]));
      const packets = output.packets as Array<{ rtt_ms: number | null }>;
      for (const k of ['rtt_min_ms', 'rtt_avg_ms', 'rtt_max_ms', 'rtt_stddev_ms', 'packet_loss'] as const) if (rnd() < odd_stats) output[k] = pick([...odd, null]);
      for (const p of packets) if (rnd() < odd_packets) p.rtt_ms = pick(odd);
      const response = pick(['avg', 'avg', 'avg', 'odd', 'null', 'float4']);
      const avg = output.rtt_avg_ms as number | null;
      return check(i, rnd() < 0.05 ? pick([null, 'text', { other: pick(odd) }]) : output, [], {
        response_ms: response === 'avg' ? avg : response === 'odd' ? pick(odd) : response === 'float4' ? Math.fround(rnd() * 100) : null,
      });
    });
    const back = decodeBlock(HOUR, encodeBlock(HOUR, checks));
    // isDeepStrictEqual tells -0 from 0 (tap's strictSame does not).
    if (!isDeepStrictEqual(back, checks)) {
      t.fail(`seed ${seed}: ${JSON.stringify(back.find((c, i) => !isDeepStrictEqual(c, checks[i])))}`);
      return;
    }
  }
  t.pass('200 random blocks decode to exactly their checks');
});

t.test('what a ping derives from its packets costs next to nothing', async (t) => {
  // An hour of agent-made pings; the same hour without its statistics and response times packs
  // hardly smaller: min, max, avg, stddev and the response time are predicted from the packets.
  const rnd = random(7);
  const checks = Array.from({ length: 60 }, (_, i) => {
    const output = agentPing(rnd, 20 + rnd() * 10, 0.5);
    return check(i, output, [], { response_ms: output.rtt_avg_ms as number, success: true, error: null, error_class: null });
  });
  const bare = checks.map((c) => {
    const { rtt_min_ms, rtt_avg_ms, rtt_max_ms, rtt_stddev_ms, ...rest } = c.output as Record<string, unknown>;
    return { ...c, response_ms: null, output: rest };
  });
  const full = encodeBlock(HOUR, checks).length;
  const without = encodeBlock(HOUR, bare).length;
  t.ok(full - without < 60, `${full} bytes with the statistics, ${without} without: under a byte a check for five values`);
  t.strictSame(decodeBlock(HOUR, encodeBlock(HOUR, checks)), checks);
});
