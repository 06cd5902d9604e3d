import t from 'tap';
import { call, testApp } from '../test-support/app.js';

// Local look-ups in the shipped GeoLite2 city and ASN data only: no traffic leaves the process.
const { app } = await testApp(t);

t.test('public addresses: location from GeoLite2, asn/org/isp from the ASN ranges, English country name', async (t) => {
  const v4 = await call(app, 'GET', '/v1/info/ip?q=81.2.69.142');
  t.equal(v4.status, 200);
  t.same(v4.body.data, {
    ip: '81.2.69.142', country: 'GB', country_name: 'United Kingdom', region: 'England', city: 'Bracknell',
    asn: 20712, org: 'Andrews & Arnold Ltd', isp: 'Andrews & Arnold Ltd',
  });
  const v6 = await call(app, 'GET', '/v1/info/ip?q=2001:4860:4860::8888');
  t.match(v6.body.data, { ip: '2001:4860:4860::8888', country: 'US', country_name: 'United States', asn: 15169, org: 'Google LLC' });
  t.notOk('note' in v6.body.data);
});

t.test('private and reserved addresses answer 200 with a note and no location', async (t) => {
  for (const [ip, range] of [['10.1.2.3', 'private'], ['127.0.0.1', 'loopback'], ['198.18.0.1', 'reserved'], ['::1', 'loopback'], ['fd00:7661::1', 'uniqueLocal'], ['::ffff:192.168.1.1', 'private']] as const) {
    const res = await call(app, 'GET', `/v1/info/ip?q=${encodeURIComponent(ip)}`);
    t.equal(res.status, 200, ip);
    t.match(res.body.data, { ip, country: null, country_name: null, city: null, asn: null, org: null, isp: null }, ip);
    t.match(res.body.data.note, range, ip);
  }
});

t.test('q of the wrong kind: 400 VALIDATION_FAILED naming q', async (t) => {
  for (const q of ['example.com', '300.1.1.1', '1.2.3', 'fe80::1%eth0', '']) {
    const res = await call(app, 'GET', `/v1/info/ip?q=${encodeURIComponent(q)}`);
    t.equal(res.status, 400, q);
    t.equal(res.body.error.code, 'VALIDATION_FAILED', q);
    t.match(res.body.error.details.fields[0].path, /^q$/, q);
  }
  const missing = await call(app, 'GET', '/v1/info/ip');
  t.equal(missing.status, 400);
  t.equal(missing.body.error.details.fields[0].path, 'q');
});

t.test('the lookups are in the OpenAPI document under the info tag', async (t) => {
  const doc = (await call(app, 'GET', '/v1/openapi.json')).body;
  for (const path of ['/v1/info/ip', '/v1/info/dns', '/v1/info/icp', '/v1/ip/reputation']) t.same(doc.paths[path]?.get?.tags, ['info'], path);
});
