import t from 'tap';
import { loadBootstrap, rdapServersFor } from './rdap-bootstrap.js';

/* The shipped RFC 9224 file (rdap-dns.json, from rdap-update-bootstrap.ts) is the whole IANA registry, not a hand-picked subset. */

t.test('the shipped bootstrap file loads and covers the registry', async (t) => {
  const b = loadBootstrap();
  t.ok(b.size > 1000, `${b.size} TLDs`);
  t.same(rdapServersFor(b, 'example.com'), ['https://rdap.verisign.com/com/v1/']);
  t.same(rdapServersFor(b, 'example.net'), ['https://rdap.verisign.com/net/v1/'], 'net has its own base, unlike the earlier hand-written subset');
  t.same(rdapServersFor(b, 'shop.example.co.uk'), ['https://rdap.nominet.uk/uk/']);
  t.ok(rdapServersFor(b, 'example.music').length > 0, 'a new gTLD');
  t.same(rdapServersFor(b, 'example.de'), [], 'a TLD without RDAP in the registry: the WHOIS fallback');
});
