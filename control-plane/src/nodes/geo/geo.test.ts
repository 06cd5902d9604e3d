import t from 'tap';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAsnTable } from './asn.js';
import { CITIES, cityById, listCities } from './cities.js';
import { createGeoLocator } from './geoip.js';
import { isKnownProvince, PROVINCES } from './provinces.js';
import { providerOf } from './provider.js';

// Local look-ups in the shipped offline databases only: no traffic leaves the process.
const geo = createGeoLocator();

t.test('known public addresses resolve from the mmdb and the ASN ranges', async (t) => {
  t.same(await geo.lookup('81.2.69.142'), { country: 'GB', region: 'England', city: 'Bracknell', asn: 20712, isp: 'Andrews & Arnold Ltd' });
  t.match(await geo.lookup('8.8.8.8'), { country: 'US', asn: 15169, isp: 'Google LLC' });
  t.match(await geo.lookup('2001:4860:4860::8888'), { country: 'US', asn: 15169 });
  t.match(await geo.lookup('::ffff:8.8.8.8'), { country: 'US', asn: 15169 }, 'IPv4-mapped IPv6 is unwrapped');
});

t.test('private, loopback, test and malformed addresses have no geo', async (t) => {
  const empty = { country: null, region: null, city: null, asn: null, isp: null };
  for (const ip of ['127.0.0.1', '10.1.2.3', '198.18.0.1', '::1', 'fd00:7661::1', '192.0.2.1', 'not-an-ip', '']) {
    t.same(await geo.lookup(ip), empty, ip || '(empty)');
  }
});

t.test('ASN CSV ranges: quoted organisations, gaps and both families', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'asn-'));
  await writeFile(join(dir, 'v4.csv'), '16777216,16777471,13335,"Cloudflare, Inc."\n16778240,16779263,38803,"Say ""hi"" Ltd"\nbroken line\n');
  const v4 = await loadAsnTable(join(dir, 'v4.csv'), 4);
  t.equal(v4.rows, 2);
  t.same(v4.find(16777300n), { asn: 13335, org: 'Cloudflare, Inc.' });
  t.same(v4.find(16778240n), { asn: 38803, org: 'Say "hi" Ltd' });
  t.equal(v4.find(16777600n), null, 'gap between ranges');
  t.equal(v4.find(1n), null, 'before the first range');
  const big = (1n << 127n) + 5n;
  await writeFile(join(dir, 'v6.csv'), `${1n << 127n},${(1n << 127n) + 10n},64500,Doc AS\n`);
  const v6 = await loadAsnTable(join(dir, 'v6.csv'), 6);
  t.same(v6.find(big), { asn: 64500, org: 'Doc AS' });
  t.equal(v6.find(big + 100n), null);
});

t.test('missing data files degrade to empty facts instead of throwing', async (t) => {
  const broken = createGeoLocator({ city_dir: '/nonexistent', asn_dir: '/nonexistent' });
  t.same(await broken.lookup('8.8.8.8'), { country: null, region: null, city: null, asn: null, isp: null });
});

t.test('city dictionary: unique ids, whitelisted provinces, filters', async (t) => {
  t.ok(CITIES.length >= 60);
  t.equal(new Set(CITIES.map((c) => c.id)).size, CITIES.length, 'ids unique');
  for (const c of CITIES) t.ok(isKnownProvince(c.province) && c.province.startsWith(`${c.country}-`), `${c.name} ${c.province}`);
  t.equal(cityById(1)?.name, 'Beijing');
  t.equal(cityById(424242), undefined);
  t.same(listCities({ province: 'CN-GD' }).map((c) => c.id), [3, 4, 5]);
  t.ok(listCities({ country: 'US' }).every((c) => c.country === 'US'));
  t.ok(PROVINCES.size > 200 && isKnownProvince('CN-BJ') && isKnownProvince('JP-13') && !isKnownProvince('CN-XX'));
});

t.test('provider: declared carrier, then well-known ASN, then the organisation', async (t) => {
  t.equal(providerOf('chinaunicom', 15169, 'Google LLC'), 'chinaunicom');
  t.equal(providerOf('other', 15169, 'Google LLC'), 'gcp');
  t.equal(providerOf(null, 20712, 'Andrews & Arnold Ltd'), 'Andrews & Arnold Ltd');
  t.equal(providerOf(null, null, null), null);
});
