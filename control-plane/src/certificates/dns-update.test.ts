import t from 'tap';
import { DnsUpdateError, sendUpdate } from './dns-update.js';
import { startBind } from './test-servers.js';

/*
 * RFC 2136 updates signed with TSIG (RFC 8945) against a real BIND 9: a TXT record added and
 * deleted, the empty (no-op) update, a wrong secret and an unknown key refused, and nothing
 * changed by a refused update.
 */

t.test('TSIG-signed updates against BIND', async (t) => {
  const bind = await startBind(t);
  const target = { host: '127.0.0.1', port: bind.port, zone: bind.zone, key: bind.key, timeout_ms: 30_000 };
  const fqdn = `_acme-challenge.www.${bind.zone}`;

  await sendUpdate(target, []);
  await sendUpdate(target, [{ op: 'add', fqdn, value: 'Abc-DEF_123' }, { op: 'add', fqdn, value: 'second' }]);
  t.same(bind.txt(fqdn).sort(), ['Abc-DEF_123', 'second'], 'both records are served, case kept');
  await sendUpdate(target, [{ op: 'delete', fqdn, value: 'second' }]);
  t.same(bind.txt(fqdn), ['Abc-DEF_123'], 'only the deleted record is gone');

  const wrong = { ...target, key: { ...bind.key, secret_base64: Buffer.alloc(32, 7).toString('base64') } };
  await t.rejects(sendUpdate(wrong, [{ op: 'add', fqdn, value: 'forged' }]), DnsUpdateError, 'a wrong secret is refused');
  const unknown = { ...target, key: { ...bind.key, name: 'someone-else' } };
  await t.rejects(sendUpdate(unknown, [{ op: 'add', fqdn, value: 'forged' }]), { name: 'DnsUpdateError', rcode: 'NOTAUTH' }, 'an unknown key is refused');
  const outside = { ...target, zone: 'other.test' };
  await t.rejects(sendUpdate(outside, [{ op: 'add', fqdn: '_acme-challenge.other.test', value: 'x' }]), DnsUpdateError, 'a zone the server does not serve is refused');
  t.same(bind.txt(fqdn), ['Abc-DEF_123'], 'refused updates changed nothing');

  const closed = { ...target, port: 1 };
  await t.rejects(sendUpdate(closed, []), { name: 'DnsUpdateError', rcode: null }, 'an unreachable server is an error, not a crash');
});
