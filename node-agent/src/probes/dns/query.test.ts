import t from 'tap';
import dnsPacket from 'dns-packet';
import { buildQuery, formatServer, matchReply, normalizeName, parseServer } from './query.js';

t.test('parseServer', async (t) => {
  const cases: [string, ReturnType<typeof parseServer>][] = [
    ['1.1.1.1', { host: '1.1.1.1', port: 53 }],
    ['1.1.1.1:5353', { host: '1.1.1.1', port: 5353 }],
    ['dns.example.test', { host: 'dns.example.test', port: 53 }],
    ['dns.example.test:853', { host: 'dns.example.test', port: 853 }],
    ['[fd00:7661::53]:5300', { host: 'fd00:7661::53', port: 5300 }],
    ['[::1]', { host: '::1', port: 53 }],
    ['2001:db8::53', { host: '2001:db8::53', port: 53 }],
    ['host:0', null],
    ['host:65536', null],
    ['[not-v6]:53', null],
    ['a b', null],
    ['a:b:c:zz', null],
  ];
  for (const [input, want] of cases) t.same(parseServer(input), want, input);
  t.equal(formatServer('::1', 53), '[::1]:53');
  t.equal(formatServer('127.0.0.1', 5353), '127.0.0.1:5353');
});

t.test('normalizeName', async (t) => {
  t.equal(normalizeName('example.com.'), 'example.com');
  t.equal(normalizeName(' Example.COM '), 'Example.COM');
  t.equal(normalizeName('.'), '.');
  t.equal(normalizeName('_dmarc.example.com'), '_dmarc.example.com');
  t.equal(normalizeName(`${'a'.repeat(63)}.com`), `${'a'.repeat(63)}.com`);
  t.equal(normalizeName(`${'a'.repeat(64)}.com`), null, 'label over 63 octets');
  t.equal(normalizeName(Array.from({ length: 60 }, () => 'abcd').join('.')), null, 'name over 253 octets');
  t.equal(normalizeName('a..b'), null, 'empty label');
  t.equal(normalizeName(''), null);
});

t.test('buildQuery and matchReply', async (t) => {
  const q = buildQuery('example.test', 'MX');
  const decoded = dnsPacket.decode(q.wire);
  t.equal(decoded.id, q.id);
  t.equal(decoded.flag_rd, true, 'recursion desired');
  t.same(decoded.questions, [{ name: 'example.test', type: 'MX', class: 'IN' }]);
  t.equal((decoded.additionals?.[0] as { udpPayloadSize?: number } | undefined)?.udpPayloadSize, 1232, 'EDNS(0) with 1232 bytes');

  const reply = (over: Record<string, unknown>) => dnsPacket.encode({ type: 'response', id: q.id, questions: [{ name: 'EXAMPLE.test', type: 'MX' }], ...over });
  t.ok(matchReply(q, reply({})), 'same id and question (case-insensitive name)');
  t.equal(matchReply(q, reply({ id: (q.id + 1) & 0xffff })), null, 'other id');
  t.equal(matchReply(q, reply({ questions: [{ name: 'example.test', type: 'A' }] })), null, 'other type');
  t.equal(matchReply(q, reply({ questions: [{ name: 'other.test', type: 'MX' }] })), null, 'other name');
  t.equal(matchReply(q, reply({ type: 'query' })), null, 'QR bit clear');
  t.equal(matchReply(q, Buffer.from([1, 2, 3])), null, 'garbage');
  t.ok(matchReply(q, reply({ questions: [], flags: 1 })), 'a reply without a question section (FORMERR) is accepted');
  const ids = new Set(Array.from({ length: 64 }, () => buildQuery('a.test', 'A').id));
  t.ok(ids.size > 48, 'ids are random');
});
