import t from 'tap';
import { parseIpBootstrap, parseRdapIpNetwork, rdapServersForIp } from './rdap-ip.js';

/* RFC 9224 IP bootstrap matching and RFC 9083 IP network objects. */

t.test('the longest matching prefix wins, per address family; no match: the fallback', async (t) => {
  const b = parseIpBootstrap([
    JSON.stringify({ version: '1.0', services: [[['41.0.0.0/8'], ['https://rdap.afrinic.net/rdap/', 'http://rdap.afrinic.net/rdap/']], [['41.128.0.0/9'], ['https://more.example/rdap']]] }),
    JSON.stringify({ version: '1.0', services: [[['2001:200::/23'], ['https://rdap.apnic.net/']]] }),
  ]);
  t.same(rdapServersForIp(b, '41.1.2.3', ['https://fallback/']), ['https://rdap.afrinic.net/rdap/', 'http://rdap.afrinic.net/rdap/']);
  t.same(rdapServersForIp(b, '41.200.0.1', []), ['https://more.example/rdap/']);
  t.same(rdapServersForIp(b, '2001:200::1', []), ['https://rdap.apnic.net/']);
  t.same(rdapServersForIp(b, '8.8.8.8', ['https://fallback/']), ['https://fallback/']);
  t.same(rdapServersForIp(b, '::ffff:41.1.2.3', []), ['https://rdap.afrinic.net/rdap/', 'http://rdap.afrinic.net/rdap/'], 'an IPv4-mapped address is matched as IPv4');
  t.throws(() => parseIpBootstrap(['{"version":"1.0","services":[[["not-a-prefix"],["https://x/"]]]}']));
});

t.test('an IP network without cidr0: the range as one prefix when it is one', async (t) => {
  const net = parseRdapIpNetwork({ objectClassName: 'ip network', startAddress: '198.51.100.0', endAddress: '198.51.100.127', entities: [{ roles: ['administrative'], vcardArray: ['vcard', [['fn', {}, 'text', 'Admin Org']]] }] });
  t.same(net.cidrs, ['198.51.100.0/25']);
  t.equal(net.organisation, 'Admin Org');
  t.same(parseRdapIpNetwork({ startAddress: '198.51.100.1', endAddress: '198.51.100.5' }).cidrs, [], 'not a prefix');
  t.same(parseRdapIpNetwork({ startAddress: '2001:db8::', endAddress: '2001:db8::ffff:ffff' }).cidrs, ['2001:db8::/96']);
});
