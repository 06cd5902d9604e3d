import t from 'tap';
import { describeIssues, fieldIssues } from '../parse.js';
import { newId } from '../ids.js';
import {
  dnsProbeRequestSchema, httpProbeRequestSchema, pingProbeRequestSchema, tcpProbeRequestSchema,
  tracerouteProbeRequestSchema,
} from './request.js';

t.test('docs/api/probes.md examples parse and get the documented defaults', async (t) => {
  const http = httpProbeRequestSchema.parse({ target: 'https://example.com' });
  t.same(http.params, { method: 'GET', timeout_ms: 10000, headers: {}, follow_redirects: true, ip_version: 'auto' });
  const ping = pingProbeRequestSchema.parse({ target: 'example.com', params: { count: 10 } });
  t.equal(ping.params.count, 10);
  t.equal(ping.params.timeout_ms, 5000);
  t.equal(pingProbeRequestSchema.parse({ target: '1.1.1.1' }).params.count, 4);
  const dns = dnsProbeRequestSchema.parse({ target: 'example.com', params: { record_type: 'MX', server: '1.1.1.1:53' } });
  t.equal(dns.params.record_type, 'MX');
  t.equal(dnsProbeRequestSchema.parse({ target: 'example.com' }).params.record_type, 'A');
  t.ok(dnsProbeRequestSchema.safeParse({ target: 'x.com', params: { server: '[2001:db8::1]:5353' } }).success);
  const tcp = tcpProbeRequestSchema.parse({ target: 'example.com:443' });
  t.equal(tcp.params.timeout_ms, 5000);
  t.equal(tracerouteProbeRequestSchema.parse({ target: 'example.com' }).params.max_hops, 30);
  const node = newId('node');
  const sel = httpProbeRequestSchema.parse({ target: 'https://a.b', node_ids: [node], nodes: { count: 2, countries: ['de'] } });
  t.same(sel.nodes?.countries, ['DE'], 'country codes are upper-cased');
});

const rejects: Array<[string, { safeParse: (v: unknown) => { success: boolean; error?: any } }, unknown, RegExp]> = [
  ['timeout below 1000', httpProbeRequestSchema, { target: 'https://a.b', params: { timeout_ms: 999 } }, /params\.timeout_ms/],
  ['timeout above 30000', httpProbeRequestSchema, { target: 'https://a.b', params: { timeout_ms: 30001 } }, /params\.timeout_ms/],
  ['unknown method', httpProbeRequestSchema, { target: 'https://a.b', params: { method: 'TRACE' } }, /params\.method/],
  ['body over 32768', httpProbeRequestSchema, { target: 'https://a.b', params: { body: 'x'.repeat(32769) } }, /params\.body/],
  ['count over 50', pingProbeRequestSchema, { target: 'a.b', params: { count: 51 } }, /params\.count/],
  ['count zero', pingProbeRequestSchema, { target: 'a.b', params: { count: 0 } }, /params\.count/],
  ['port zero', tcpProbeRequestSchema, { target: 'a.b', params: { port: 0 } }, /params\.port/],
  ['port 65536', tcpProbeRequestSchema, { target: 'a.b', params: { port: 65536 } }, /params\.port/],
  ['unknown record type', dnsProbeRequestSchema, { target: 'a.b', params: { record_type: 'PTRX' } }, /params\.record_type/],
  ['bad server', dnsProbeRequestSchema, { target: 'a.b', params: { server: 'a b' } }, /params\.server/],
  ['max_hops 0', tracerouteProbeRequestSchema, { target: 'a.b', params: { max_hops: 0 } }, /params\.max_hops/],
  ['missing target', pingProbeRequestSchema, {}, /target/],
  ['blank target', pingProbeRequestSchema, { target: '   ' }, /target/],
  ['bad node id', pingProbeRequestSchema, { target: 'a.b', node_ids: ['m_01jd3k6w9z4q8r2t7v5x1y3b6c'] }, /node_ids\[0\].*node id \(n_…\)/],
  ['unknown field', pingProbeRequestSchema, { target: 'a.b', nodez: 1 }, /nodez/],
  ['unknown param', pingProbeRequestSchema, { target: 'a.b', params: { cnt: 1 } }, /cnt/],
  ['string count', pingProbeRequestSchema, { target: 'a.b', params: { count: '4' } }, /params\.count/],
];

for (const [name, schema, input, message] of rejects) {
  t.test(`rejects ${name} with a clear message`, async (t) => {
    const r = schema.safeParse(input);
    t.notOk(r.success);
    t.match(describeIssues(fieldIssues(r.error)), message);
  });
}
