import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { firstNameserver, systemNameserver } from './resolv-conf.js';

t.test('firstNameserver', async (t) => {
  const cases: [string, string, string][] = [
    ['systemd-resolved stub', '# generated\nnameserver 127.0.0.53\noptions edns0 trust-ad\nsearch lan\n', '127.0.0.53'],
    ['first of several', 'nameserver 10.0.0.1\nnameserver 10.0.0.2\n', '10.0.0.1'],
    ['comments skipped', '; nameserver 9.9.9.9\n# nameserver 8.8.8.8\n  nameserver   192.0.2.53  \n', '192.0.2.53'],
    ['IPv6 with zone', 'nameserver fe80::1%eth0\n', 'fe80::1'],
    ['IPv6', 'nameserver 2001:db8::53\n', '2001:db8::53'],
    ['invalid entry skipped', 'nameserver dns.example\nnameserver 192.0.2.1\n', '192.0.2.1'],
    ['none: the local host', 'search example.com\n', '127.0.0.1'],
    ['empty', '', '127.0.0.1'],
  ];
  for (const [label, text, want] of cases) t.equal(firstNameserver(text), want, label);
});

t.test('systemNameserver reads the file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'vantage-resolv-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'resolv.conf');
  await writeFile(path, 'nameserver 198.18.0.53\n');
  t.equal(await systemNameserver(path), '198.18.0.53');
  t.equal(await systemNameserver(join(dir, 'missing')), '127.0.0.1', 'unreadable file: local host');
});
