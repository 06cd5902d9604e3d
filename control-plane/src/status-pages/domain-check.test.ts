import dgram from 'node:dgram';
import t from 'tap';
import dnsPacket, { type Answer, type DecodedPacket } from 'dns-packet';
import { checkCustomDomain } from './domain-check.js';

/*
 * The custom domain's DNS check against a real DNS server on 127.0.0.1 (UDP, dns-packet): a CNAME
 * to this deployment passes, a CNAME elsewhere and a name without one fail with their reason.
 */

async function cnameServer(t: { teardown(fn: () => unknown): void }, records: Record<string, string>): Promise<string> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    let query: DecodedPacket;
    try { query = dnsPacket.decode(msg); } catch { return; }
    const q = query.questions?.[0];
    if (!q) return;
    const target = records[q.name.toLowerCase()];
    const answers: Answer[] = target && q.type === 'CNAME' ? [{ name: q.name, type: 'CNAME', ttl: 60, data: target }] : [];
    // A name we hold no record for is NXDOMAIN (rcode 3); one without a CNAME is NOERROR with no answer.
    const flags = dnsPacket.AUTHORITATIVE_ANSWER | (q.name.toLowerCase() in records || q.name.startsWith('bare.') ? 0 : 3);
    socket.send(dnsPacket.encode({ type: 'response', id: query.id, flags, questions: query.questions, answers }), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  return `127.0.0.1:${socket.address().port}`;
}

t.test('the CNAME of the custom domain must name the deployment', async (t) => {
  const server = await cnameServer(t, { 'status.acme.test': 'vantage.example.net.', 'status.other.test': 'elsewhere.example.org' });
  const config = { status_page_dns_servers: [server] };
  t.same(await checkCustomDomain('status.acme.test', 'Vantage.example.net', config), {
    custom_domain: 'status.acme.test', expected_target: 'vantage.example.net', cname: ['vantage.example.net'], ok: true, message: 'status.acme.test is a CNAME of vantage.example.net',
  });
  t.match(await checkCustomDomain('status.other.test', 'vantage.example.net', config), { ok: false, cname: ['elsewhere.example.org'], message: /not of vantage\.example\.net/ });
  t.match(await checkCustomDomain('bare.acme.test', 'vantage.example.net', config), { ok: false, cname: [], message: /has no CNAME record: add one naming vantage\.example\.net/ });
  t.match(await checkCustomDomain('missing.acme.test', 'vantage.example.net', config), { ok: false, cname: [], message: /no CNAME record/ });
});
