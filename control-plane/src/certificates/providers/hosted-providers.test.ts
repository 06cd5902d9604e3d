import t from 'tap';
import { createLogger } from '../../log.js';
import { secretBoxOf } from '../../secrets/secret-box.js';
import { call, registerUser, testApp } from '../../test-support/app.js';
import { runHealthChecks } from '../order-jobs.js';
import { dnsProvider } from './dns-provider.js';
import { sigV4Fault, startFakeCloudflare, startFakeRoute53 } from './hosted-test-servers.js';

/*
 * The hosted DNS providers' adapters against those providers' documented request and response
 * shapes served on loopback (hosted-test-servers.ts): Cloudflare's v4 DNS records API and
 * Route 53's 2013-04-01 API with every request's AWS Signature Version 4 checked. Adding and
 * removing DNS-01 TXT values (idempotently, other values at the name kept), the health check,
 * refusals reported, and the credentials' periodic health check through the app.
 */

const FQDN = '_acme-challenge.www.example.test';
const timeout = { certificates_dns_timeout_ms: 10_000 };

t.test('Cloudflare DNS records API', async (t) => {
  const cf = await startFakeCloudflare(t);
  const config = { ...timeout, certificates_cloudflare_api_url: cf.api_url, certificates_route53_api_url: 'https://route53.invalid' };
  const p = dnsProvider(config, 'cloudflare', { zone_id: cf.zone_id }, cf.token);
  const txt = () => cf.records.filter((r) => r.type === 'TXT' && r.name === FQDN).map((r) => r.content).sort();

  await p.check();
  t.match(cf.seen.at(-1), { method: 'GET', path: `/client/v4/zones/${cf.zone_id}`, headers: { authorization: `Bearer ${cf.token}` } }, 'the health check reads the zone');

  await p.present(FQDN, 'Abc-DEF_123');
  const created = cf.seen.at(-1)!;
  t.match(created, { method: 'POST', path: `/client/v4/zones/${cf.zone_id}/dns_records`, headers: { 'content-type': /^application\/json/ } });
  t.same(JSON.parse(created.body), { type: 'TXT', name: FQDN, content: 'Abc-DEF_123', ttl: 60 }, 'the documented create body');
  const posts = () => cf.seen.filter((r) => r.method === 'POST').length;
  await p.present(FQDN, 'Abc-DEF_123');
  t.equal(posts(), 1, 'present twice creates one record');
  await p.present(FQDN, 'second');
  t.same(txt(), ['Abc-DEF_123', 'second'], 'both values at the name, case kept');

  await p.cleanup(FQDN, 'Abc-DEF_123');
  t.same(txt(), ['second'], 'only that value removed');
  const deletes = cf.seen.filter((r) => r.method === 'DELETE').length;
  await p.cleanup(FQDN, 'Abc-DEF_123');
  t.equal(cf.seen.filter((r) => r.method === 'DELETE').length, deletes, 'removing a value that is not there sends nothing');
  t.equal(cf.records.filter((r) => r.type === 'A').length, 1, 'other records untouched');

  const forged = dnsProvider(config, 'cloudflare', { zone_id: cf.zone_id }, 'a-token-that-is-not-valid');
  await t.rejects(forged.check(), /Cloudflare API GET refused: 9109 Invalid access token/, 'a refused token says so');
  await t.rejects(forged.present(FQDN, 'forged'), /9109/);
  t.same(txt(), ['second'], 'nothing changed by a refused token');
  const otherZone = dnsProvider(config, 'cloudflare', { zone_id: 'f'.repeat(32) }, cf.token);
  await t.rejects(otherZone.check(), /7003/, 'an unknown zone says so');
  const down = dnsProvider({ ...config, certificates_cloudflare_api_url: 'http://127.0.0.1:1/client/v4' }, 'cloudflare', { zone_id: cf.zone_id }, cf.token);
  await t.rejects(down.check(), /Cloudflare API unreachable/);
});

t.test('Route 53 API with Signature Version 4', async (t) => {
  const r53 = await startFakeRoute53(t);
  const config = { ...timeout, certificates_cloudflare_api_url: 'https://cloudflare.invalid', certificates_route53_api_url: r53.api_url };
  const settings = { hosted_zone_id: r53.hosted_zone_id, access_key_id: r53.access_key_id, region: 'us-east-1' };
  const p = dnsProvider(config, 'route53', settings, r53.secret_access_key);
  const set = () => r53.sets.find((s) => s.name === `${FQDN}.` && s.type === 'TXT');
  const changes = () => r53.seen.filter((r) => r.method === 'POST').length;

  await p.check();
  t.match(r53.seen.at(-1), { method: 'GET', path: `/2013-04-01/hostedzone/${r53.hosted_zone_id}` }, 'the health check reads the hosted zone');
  t.equal(sigV4Fault(r53.seen.at(-1)!, r53.access_key_id, r53.secret_access_key, 'route53'), null, 'signed with Signature Version 4');

  // The name has no set yet: the listing from it returns the next name's set, which is not taken for it.
  await p.present(FQDN, 'Abc-DEF_123');
  t.match(set(), { ttl: 60, values: ['"Abc-DEF_123"'] }, 'one quoted character-string');
  t.match(r53.seen.at(-1)!.body, /<Action>UPSERT<\/Action>/);
  await p.present(FQDN, 'say "hi" \\o/');
  t.same(set()!.values, ['"Abc-DEF_123"', '"say \\"hi\\" \\\\o/"'], 'the set rewritten with both values, quotes and backslashes escaped');
  const before = changes();
  await p.present(FQDN, 'say "hi" \\o/');
  t.equal(changes(), before, 'a value already there (read back unescaped) is not written again');

  await p.cleanup(FQDN, 'Abc-DEF_123');
  t.same(set()!.values, ['"say \\"hi\\" \\\\o/"'], 'removing one value keeps the other');
  await p.cleanup(FQDN, 'say "hi" \\o/');
  t.equal(set(), undefined, 'removing the last value deletes the set (DELETE naming it exactly)');
  t.match(r53.seen.at(-1)!.body, /<Action>DELETE<\/Action>/);
  const after = changes();
  await p.cleanup(FQDN, 'say "hi" \\o/');
  t.equal(changes(), after, 'removing a value that is not there sends nothing');
  t.ok(r53.sets.some((s) => s.name === 'zzz.example.test.'), 'other sets untouched');

  const forged = dnsProvider(config, 'route53', settings, 'x'.repeat(40));
  await t.rejects(forged.check(), /Route 53 API refused: SignatureDoesNotMatch/, 'a wrong secret access key is refused');
  await t.rejects(forged.present(FQDN, 'forged'), /SignatureDoesNotMatch/);
  t.equal(set(), undefined, 'nothing changed by a refused request');
  const otherZone = dnsProvider(config, 'route53', { ...settings, hosted_zone_id: 'ZNOTMINE' }, r53.secret_access_key);
  await t.rejects(otherZone.check(), /NoSuchHostedZone/);
});

t.test('hosted credentials through the app: stored, checked periodically and on demand', async (t) => {
  const [cf, r53] = [await startFakeCloudflare(t), await startFakeRoute53(t)];
  const { app, deps } = await testApp(t, { config: { certificates_cloudflare_api_url: cf.api_url, certificates_route53_api_url: r53.api_url } });
  const alice = await registerUser(app);
  const as = { token: alice.access_token };
  const create = async (body: object) => {
    const r = await call(app, 'POST', '/v1/dns-credentials', { ...as, body });
    t.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data;
  };
  const cfCred = await create({ provider: 'cloudflare', display_name: 'cf', settings: { zone_id: cf.zone_id }, secret: cf.token });
  const r53Cred = await create({ provider: 'route53', display_name: 'r53', settings: { hosted_zone_id: r53.hosted_zone_id, access_key_id: r53.access_key_id }, secret: r53.secret_access_key });
  const bad = await create({ provider: 'cloudflare', display_name: 'old token', settings: { zone_id: cf.zone_id }, secret: 'revoked-token-0123456789' });
  t.match([cfCred, r53Cred, bad].map((c) => c.health_status), ['unknown', 'unknown', 'unknown']);

  // The periodic pass checks every credential not checked within the interval.
  const checked = await runHealthChecks({ sql: deps.sql, config: deps.config, box: secretBoxOf(deps.config), log: createLogger('silent') });
  t.equal(checked, 3);
  const read = async (id: number) => (await call(app, 'GET', `/v1/dns-credentials/${id}`, as)).body.data;
  t.match(await read(cfCred.id), { health_status: 'valid', health_error: null, health_checked_at: String });
  t.match(await read(r53Cred.id), { health_status: 'valid', health_error: null });
  t.match(await read(bad.id), { health_status: 'invalid', health_error: /Invalid access token/ });
  t.equal(await runHealthChecks({ sql: deps.sql, config: deps.config, box: secretBoxOf(deps.config), log: createLogger('silent') }), 0, 'none due again before the interval');
  t.equal(cf.seen.filter((r) => r.method !== 'GET').length + r53.seen.filter((r) => r.method !== 'GET').length, 0, 'health checks change nothing');

  // On demand.
  const r = await call(app, 'POST', `/v1/dns-credentials/${r53Cred.id}/check`, as);
  t.match(r.body.data, { health_status: 'valid' });
});
