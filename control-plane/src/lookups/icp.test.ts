import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { parseCsv, parseIcpFile, registrableDomain } from './icp.js';

const { app, sql, deps } = await testApp(t, { config: { admin_emails: ['ops@example.test'] } });
const admin = await registerUser(app, 'ops@example.test');
await sql`UPDATE users SET email_verified = true WHERE id = ${admin.user_id}`;
const icp = (q: string) => call(app, 'GET', `/v1/info/icp?q=${encodeURIComponent(q)}`);

t.test('registrable domains from the Public Suffix List', async (t) => {
  t.equal(registrableDomain('www.Example.com.cn.'), 'example.com.cn');
  t.equal(registrableDomain('a.b.example.cn'), 'example.cn');
  t.equal(registrableDomain('shop.example.gov.cn'), 'example.gov.cn');
  t.equal(registrableDomain('com.cn'), null, 'a public suffix itself');
  t.equal(registrableDomain('1.2.3.4'), null);
});

t.test('import files: CSV with quotes and JSON Lines; bad lines named', async (t) => {
  t.same(parseCsv('a,b\n"x, ""y""",z\r\n'), [['a', 'b'], ['x, "y"', 'z']]);
  const rows = parseIcpFile('domain,icp_number,company,license_type,type,filed_at,source\nwww.example.cn,京ICP备12345678号-1,"示例科技有限公司, 北京",ICP备案,企业,2020-05-01,MIIT export\n');
  t.same(rows, [{ domain: 'example.cn', icp_number: '京ICP备12345678号-1', company: '示例科技有限公司, 北京', license_type: 'ICP备案', type: '企业', filed_at: '2020-05-01', source: 'MIIT export', inquiry_url: null }]);
  t.equal(parseIcpFile('{"domain":"example.com.cn","icp_number":"沪ICP备1号","company":"甲"}\n\n')[0]!.domain, 'example.com.cn');
  t.throws(() => parseIcpFile('domain,icp_number,company\nexample.cn,,甲\n'), /line 2: icp_number/);
  t.throws(() => parseIcpFile('domain,icp_number,company,filed_at\nexample.cn,1,甲,May 2020\n'), /line 2: filed_at/);
  t.throws(() => parseIcpFile('{"domain":"com.cn","icp_number":"1","company":"甲"}\n'), /line 1: domain: com.cn is not a registrable domain/);
});

t.test('administrators load records; the lookup answers for any host under the registrable domain', async (t) => {
  const none = await icp('www.example.cn');
  t.equal(none.status, 200);
  t.same(none.body.data, { domain: 'example.cn', icp_number: null, company: null, license_type: null, type: null, filed_at: null, source: null, inquiry_url: null, note: 'no ICP filing record for example.cn in this deployment\'s ICP data set' });
  const body = { records: [{ domain: 'shop.example.cn', icp_number: '京ICP备12345678号', company: '示例科技有限公司', license_type: 'ICP备案', type: '企业', filed_at: '2020-05-01', source: 'operator import' }] };
  const loaded = await call(app, 'POST', '/v1/admin/icp-records', { token: admin.access_token, body });
  t.same([loaded.status, loaded.body.data], [200, { imported: 1, total: 1 }]);
  const found = await icp('WWW.example.cn');
  t.same(found.body.data, { domain: 'example.cn', icp_number: '京ICP备12345678号', company: '示例科技有限公司', license_type: 'ICP备案', type: '企业', filed_at: '2020-05-01', source: 'operator import', inquiry_url: null });
  const [audit] = await sql`SELECT action FROM admin_audit WHERE actor_user_id = ${admin.user_id} ORDER BY id DESC LIMIT 1`;
  t.equal(audit?.action, 'icp.import');
  const bad = await call(app, 'POST', '/v1/admin/icp-records', { token: admin.access_token, body: { records: [{ domain: 'com.cn', icp_number: '1', company: '甲' }] } });
  t.same([bad.status, bad.body.error.details.fields[0].path], [400, 'records[0].domain']);
  const user = await registerUser(app);
  t.equal((await call(app, 'POST', '/v1/admin/icp-records', { token: user.access_token, body })).status, 403, 'not an administrator');
  t.equal((await call(app, 'POST', '/v1/admin/icp-records', { body })).status, 401);
});

t.test('q of the wrong kind: 400 naming q', async (t) => {
  for (const q of ['com.cn', '8.8.8.8', 'not a domain']) {
    const res = await icp(q);
    t.same([res.status, res.body.error.code, res.body.error.details.fields[0].path], [400, 'VALIDATION_FAILED', 'q'], q);
  }
});

t.test('the import command loads a file, and --replace makes it the whole set', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'icp-'));
  const file = join(dir, 'icp.jsonl');
  await writeFile(file, '{"domain":"example.com.cn","icp_number":"沪ICP备7654321号","company":"乙公司","filed_at":"2019-01-02"}\n');
  const run = promisify(execFile);
  const env = { ...process.env, VANTAGE_DATABASE_URL: deps.config.database_url! };
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'icp-import.ts'), file, '--replace'], { env });
  t.match(stdout, /imported 1 ICP records .*; 1 in the data set/);
  t.match((await icp('m.example.com.cn')).body.data, { icp_number: '沪ICP备7654321号', company: '乙公司', filed_at: '2019-01-02' });
  t.ok((await icp('example.cn')).body.data.note, 'the earlier set was replaced');
  await writeFile(file, 'domain,icp_number\nexample.org.cn,1\n');
  const failed = await run(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'icp-import.ts'), file], { env }).catch((err: { code: number; stderr: string }) => err);
  t.match(failed, { code: 1, stderr: /line 2: company/ });
});
