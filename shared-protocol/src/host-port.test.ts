import t from 'tap';
import { splitHostPort } from './host-port.js';

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
