import t from 'tap';
import dnsPacket, { type Answer } from 'dns-packet';
import { quoteString, recordValue, toRecords } from './format.js';

/** Round-trip through the wire so the formatter sees what dns-packet decodes, not what we built. */
function decoded(answer: Answer): Answer {
  const wire = dnsPacket.encode({ type: 'response', id: 1, answers: [answer] });
  return dnsPacket.decode(wire).answers![0]!;
}

const rr = (type: string, data: unknown): Answer => ({ name: 'example.test', type, ttl: 60, data }) as Answer;

t.test('presentation values per type (wire round-trip)', async (t) => {
  const cases: [Answer, string][] = [
    [rr('A', '192.0.2.1'), '192.0.2.1'],
    [rr('AAAA', '2001:db8::1'), '2001:db8::1'],
    [rr('CNAME', 'target.example.test'), 'target.example.test'],
    [rr('NS', 'ns1.example.test'), 'ns1.example.test'],
    [rr('PTR', 'host.example.test'), 'host.example.test'],
    [rr('MX', { preference: 10, exchange: 'mail.example.com' }), '10 mail.example.com'],
    [rr('TXT', ['v=spf1 include:_spf.example.com ~all']), '"v=spf1 include:_spf.example.com ~all"'],
    [rr('TXT', ['part one', 'part "two"', 'back\\slash']), '"part one" "part \\"two\\"" "back\\\\slash"'],
    [rr('TXT', [Buffer.from([0x61, 0x00, 0xff])]), '"a\\000\\255"'],
    [rr('SOA', { mname: 'ns1.example.com', rname: 'hostmaster.example.com', serial: 2024010101, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 }), 'ns1.example.com hostmaster.example.com 2024010101 7200 3600 1209600 300'],
    [rr('CAA', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }), '0 issue "letsencrypt.org"'],
    [rr('CAA', { flags: 128, tag: 'iodef', value: 'mailto:security@example.com' }), '128 iodef "mailto:security@example.com"'],
    [rr('SRV', { priority: 10, weight: 5, port: 5060, target: 'sip.example.test' }), '10 5 5060 sip.example.test'],
    [rr('DS', { keyTag: 12345, algorithm: 13, digestType: 2, digest: Buffer.from('abcd', 'hex') }), '12345 13 2 ABCD'],
    [rr('NULL', Buffer.from('0102', 'hex')), '\\# 2 0102'],
  ];
  for (const [answer, want] of cases) t.equal(recordValue(decoded(answer)), want, `${answer.type} ${want}`);
});

t.test('toRecords drops OPT and keeps name, type, ttl', async (t) => {
  const wire = dnsPacket.encode({
    type: 'response', id: 1,
    answers: [rr('A', '192.0.2.1')],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }],
  });
  const packet = dnsPacket.decode(wire);
  t.same(toRecords(packet.answers), [{ name: 'example.test', type: 'A', ttl: 60, value: '192.0.2.1' }]);
  t.same(toRecords(packet.additionals), []);
  t.same(toRecords(undefined), []);
});

t.test('quoteString', async (t) => {
  t.equal(quoteString(''), '""');
  t.equal(quoteString('tab\there'), '"tab\\009here"');
});
