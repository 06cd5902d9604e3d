import t from 'tap';
import ipaddr from 'ipaddr.js';
import { answeredSeq, buildSyn, parseTcpSegment, TCP_FLAG } from './tcp-syn.js';

/** One's complement sum of 16-bit words, folded (RFC 1071): 0xffff over a segment whose checksum is right. */
function onesSum(...parts: Buffer[]): number {
  const all = Buffer.concat(parts);
  let sum = 0;
  for (let i = 0; i < all.length; i += 2) sum += all.readUInt16BE(i);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return sum;
}

t.test('SYN layout and checksum over the IPv4 and IPv6 pseudo-headers', async (t) => {
  const syn4 = buildSyn('198.18.1.2', '198.18.3.2', 40001, 443, 0xfeedbeef);
  t.equal(syn4.length, 24);
  t.same(parseTcpSegment(6, syn4), { src_port: 40001, dst_port: 443, seq: 0xfeedbeef, ack: 0, flags: TCP_FLAG.SYN });
  t.equal(syn4[12], 0x60, 'data offset 6 words');
  t.same([...syn4.subarray(20)], [2, 4, 0x05, 0xb4], 'MSS 1460');
  const pseudo4 = Buffer.from([198, 18, 1, 2, 198, 18, 3, 2, 0, 6, 0, 24]);
  t.equal(onesSum(pseudo4, syn4), 0xffff, 'IPv4 checksum verifies');

  const syn6 = buildSyn('fd00:7661:1::2', 'fd00:7661:3::2', 40002, 80, 7);
  t.same([...syn6.subarray(20)], [2, 4, 0x05, 0xa0], 'MSS 1440');
  const pseudo6 = Buffer.concat([
    Buffer.from(ipaddr.parse('fd00:7661:1::2').toByteArray()), Buffer.from(ipaddr.parse('fd00:7661:3::2').toByteArray()),
    Buffer.from([0, 0, 0, 24, 0, 0, 0, 6]),
  ]);
  t.equal(onesSum(pseudo6, syn6), 0xffff, 'IPv6 checksum verifies');
  t.throws(() => buildSyn('198.18.1.2', 'fd00:7661:3::2', 1, 2, 3), /differ in family/);
});

t.test('which segments answer a SYN', async (t) => {
  const seg = (flags: number, ack: number) => ({ src_port: 443, dst_port: 40001, seq: 1, ack, flags });
  t.equal(answeredSeq(seg(TCP_FLAG.SYN | TCP_FLAG.ACK, 0xfeedbef0)), 0xfeedbeef, 'SYN-ACK: open port');
  t.equal(answeredSeq(seg(TCP_FLAG.RST | TCP_FLAG.ACK, 0)), 0xffffffff, 'RST-ACK: closed port; the sequence wraps');
  t.equal(answeredSeq(seg(TCP_FLAG.SYN, 0)), null, 'a SYN (our own, seen on loopback)');
  t.equal(answeredSeq(seg(TCP_FLAG.RST, 5)), null, 'a RST without ACK');
  t.equal(answeredSeq(seg(TCP_FLAG.ACK, 5)), null, 'a plain ACK');
});

t.test('parse: an IPv4 read carries the IP header; short reads are refused', async (t) => {
  const syn = buildSyn('198.18.1.2', '198.18.3.2', 40001, 443, 9);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip[9] = 6;
  t.same(parseTcpSegment(4, Buffer.concat([ip, syn])), { src_port: 40001, dst_port: 443, seq: 9, ack: 0, flags: TCP_FLAG.SYN });
  ip[9] = 17;
  t.equal(parseTcpSegment(4, Buffer.concat([ip, syn])), null, 'not TCP');
  t.equal(parseTcpSegment(6, syn.subarray(0, 19)), null);
  t.equal(parseTcpSegment(4, ip.subarray(0, 10)), null);
});
