import t from 'tap';
import { describeIssues, fieldIssues } from '../parse.js';
import { newId } from '../ids.js';
import {
  dnsProbeRequestSchema, httpProbeRequestSchema, pingProbeRequestSchema, tcpProbeRequestSchema,
  tracerouteProbeRequestSchema, mtrProbeRequestSchema, smtpProbeRequestSchema, ntpProbeRequestSchema, headersProbeRequestSchema,
  speedtestProbeRequestSchema,
  sslProbeRequestSchema,
} from './request.js';
import { mtrOutputSchema } from './mtr.js';

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

t.test('mtr, smtp and ntp defaults (docs/api/probes.md)', async (t) => {
  t.same(mtrProbeRequestSchema.parse({ target: 'example.com' }).params, { count: 10, protocol: 'icmp', max_hops: 30, interval_ms: 1000, timeout_ms: 1000, hostnames: true, ip_version: 'auto' });
  t.equal(mtrProbeRequestSchema.parse({ target: 'example.com', params: { count: 100, interval_ms: 2800 } }).params.count, 100, '100 × 2800 ms = 280 s is the longest run');
  t.same(mtrProbeRequestSchema.parse({ target: 'example.com', params: { protocol: 'tcp', port: 443 } }).params, { count: 10, protocol: 'tcp', port: 443, max_hops: 30, interval_ms: 1000, timeout_ms: 1000, hostnames: true, ip_version: 'auto' });
  t.same(smtpProbeRequestSchema.parse({ target: 'mx.example.com:587' }).params, { timeout_ms: 10000, starttls: true, ip_version: 'auto' });
  const envelope = smtpProbeRequestSchema.parse({ target: 'mx.example.com', params: { mail_from: 'probe@example.com', rcpt_to: 'postmaster@example.com', implicit_tls: true } });
  t.equal(envelope.params.rcpt_to, 'postmaster@example.com');
  t.same(ntpProbeRequestSchema.parse({ target: 'pool.ntp.org' }).params, { count: 4, interval_ms: 1000, timeout_ms: 2000, ip_version: 'auto' });
  t.same(headersProbeRequestSchema.parse({ target: 'http://example.com/' }).params, { timeout_ms: 10000, ip_version: 'auto' });
  t.same(speedtestProbeRequestSchema.parse({ target: 'https://example.com/100MB.bin' }).params, { upload_bytes: 0, timeout_ms: 30000, ip_version: 'auto' });
  t.same(sslProbeRequestSchema.parse({ target: 'example.com' }).params, { timeout_ms: 10000, ip_version: 'auto' });
});

t.test('mtr hop figures must be consistent', async (t) => {
  const hop = { hop: 1, address: '192.0.2.1', hostname: null, asn: null, loss_pct: 50, sent: 2, received: 1, last_ms: 3, avg_ms: 3, best_ms: 3, worst_ms: 3, stdev_ms: 0 };
  const out = (h: object) => ({ resolved_address: '192.0.2.9', protocol: 'icmp', destination_reached: false, rounds: 2, hops: [h] });
  t.ok(mtrOutputSchema.safeParse(out(hop)).success);
  t.notOk(mtrOutputSchema.safeParse(out({ ...hop, received: 3, loss_pct: 0 })).success, 'more answers than sent');
  t.notOk(mtrOutputSchema.safeParse(out({ ...hop, loss_pct: 10 })).success, 'loss not matching the counts');
  t.notOk(mtrOutputSchema.safeParse(out({ ...hop, received: 0, loss_pct: 100 })).success, 'times without an answer');
  t.notOk(mtrOutputSchema.safeParse(out({ ...hop, best_ms: 5 })).success, 'best above avg');
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
  ['mtr count 0', mtrProbeRequestSchema, { target: 'a.b', params: { count: 0 } }, /params\.count/],
  ['mtr count 101', mtrProbeRequestSchema, { target: 'a.b', params: { count: 101 } }, /params\.count/],
  ['mtr run over 280 s', mtrProbeRequestSchema, { target: 'a.b', params: { count: 60, timeout_ms: 5000 } }, /params\.count.*280000/],
  ['mtr protocol sctp', mtrProbeRequestSchema, { target: 'a.b', params: { protocol: 'sctp' } }, /params\.protocol/],
  ['mtr port without tcp', mtrProbeRequestSchema, { target: 'a.b', params: { port: 443 } }, /params\.port.*only for protocol tcp/],
  ['mtr port 0', mtrProbeRequestSchema, { target: 'a.b', params: { protocol: 'tcp', port: 0 } }, /params\.port/],
  ['mtr interval 50', mtrProbeRequestSchema, { target: 'a.b', params: { interval_ms: 50 } }, /params\.interval_ms/],
  ['mtr max_hops 65', mtrProbeRequestSchema, { target: 'a.b', params: { max_hops: 65 } }, /params\.max_hops/],
  ['smtp mail_from without rcpt_to', smtpProbeRequestSchema, { target: 'a.b', params: { mail_from: 'x@a.b' } }, /params\.rcpt_to.*together/],
  ['smtp rcpt_to without mail_from', smtpProbeRequestSchema, { target: 'a.b', params: { rcpt_to: 'x@a.b' } }, /params\.mail_from.*together/],
  ['smtp mailbox with CRLF', smtpProbeRequestSchema, { target: 'a.b', params: { mail_from: 'x@a.b\r\nDATA', rcpt_to: 'y@a.b' } }, /params\.mail_from/],
  ['smtp helo with a space', smtpProbeRequestSchema, { target: 'a.b', params: { helo_name: 'a b' } }, /params\.helo_name/],
  ['smtp timeout 500', smtpProbeRequestSchema, { target: 'a.b', params: { timeout_ms: 500 } }, /params\.timeout_ms/],
  ['ntp count 17', ntpProbeRequestSchema, { target: 'a.b', params: { count: 17 } }, /params\.count/],
  ['ntp timeout 50', ntpProbeRequestSchema, { target: 'a.b', params: { timeout_ms: 50 } }, /params\.timeout_ms/],
  ['ntp unknown param', ntpProbeRequestSchema, { target: 'a.b', params: { version: 3 } }, /version/],
  ['headers method', headersProbeRequestSchema, { target: 'http://a.b/', params: { method: 'POST' } }, /method/],
  ['speedtest max_bytes 0', speedtestProbeRequestSchema, { target: 'http://a.b/', params: { max_bytes: 0 } }, /params\.max_bytes/],
  ['speedtest upload over 1 GiB', speedtestProbeRequestSchema, { target: 'http://a.b/', params: { upload_bytes: 2 ** 30 + 1 } }, /params\.upload_bytes/],
  ['speedtest timeout 120001', speedtestProbeRequestSchema, { target: 'http://a.b/', params: { timeout_ms: 120001 } }, /params\.timeout_ms/],
  ['ssl timeout 30001', sslProbeRequestSchema, { target: 'a.b', params: { timeout_ms: 30001 } }, /params\.timeout_ms/],
  ['headers timeout 31000', headersProbeRequestSchema, { target: 'http://a.b/', params: { timeout_ms: 31000 } }, /params\.timeout_ms/],
];

for (const [name, schema, input, message] of rejects) {
  t.test(`rejects ${name} with a clear message`, async (t) => {
    const r = schema.safeParse(input);
    t.notOk(r.success);
    t.match(describeIssues(fieldIssues(r.error)), message);
  });
}
