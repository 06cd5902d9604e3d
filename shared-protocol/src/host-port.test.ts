import t from 'tap';
import { splitHostPort, splitSslTarget } from './host-port.js';

t.test('splitHostPort: the tcp target and dns server grammar (docs/api/probes.md)', async (t) => {
  const cases: [string, ReturnType<typeof splitHostPort>][] = [
    ['example.test', { host: 'example.test', port: null }],
    ['example.test:443', { host: 'example.test', port: 443 }],
    ['198.18.1.10:22', { host: '198.18.1.10', port: 22 }],
    ['[fd00:7661::1]:8080', { host: 'fd00:7661::1', port: 8080 }],
    ['[::1]', { host: '::1', port: null }],
    ['fd00:7661::1', { host: 'fd00:7661::1', port: null }],
    ['host:0', null],
    ['host:70000', null],
    ['host:http', null],
    ['a:b:c', null],
    ['', null],
    ['[not-v6]:80', null],
    ['host name:80', null],
  ];
  for (const [input, want] of cases) t.same(splitHostPort(input), want, input);
});

t.test('splitSslTarget: host, host:port, [v6]:port or an https:// URL', async (t) => {
  t.same(splitSslTarget('example.com'), { host: 'example.com', port: null });
  t.same(splitSslTarget('example.com:8443'), { host: 'example.com', port: 8443 });
  t.same(splitSslTarget('[2001:db8::1]:443'), { host: '2001:db8::1', port: 443 });
  t.same(splitSslTarget('https://example.com/path'), { host: 'example.com', port: null });
  t.same(splitSslTarget('https://[2001:db8::1]:9443/'), { host: '2001:db8::1', port: 9443 });
  t.same(splitSslTarget('http://example.com/'), { error: 'scheme' });
  t.same(splitSslTarget('https://'), { error: 'syntax' });
  t.same(splitSslTarget('a:b:c'), { error: 'syntax' });
  t.same(splitSslTarget('example.com:0'), { error: 'syntax' });
});
