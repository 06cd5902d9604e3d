import { request } from 'node:http';
import t from 'tap';
import { artifactPath } from '@vantage/shared-protocol';
import { storeControlCheck } from '../control-checks/results.db.js';
import { registerUser, testApp } from '../test-support/app.js';
import { publicBaseUrl } from './public-url.js';

/*
 * Every absolute URL the control plane hands out comes from configuration: a request with a forged
 * Host header (real HTTP on loopback, so the server sees the header as sent) gets the configured
 * base in heartbeat check-in URLs (create, rotate, import) and in signed artifact URLs.
 */

/** One request over a real socket with `host` as its Host header. @returns status and parsed body */
function viaHost(url: string, host: string, method: string, path: string, opts: { token: string; body?: unknown }): Promise<{ status: number; body: any }> {
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method,
      headers: { host, authorization: `Bearer ${opts.token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

t.test('publicBaseUrl: the configured URL, else the listening address', async (t) => {
  t.equal(publicBaseUrl({ public_url: 'https://vantage.example/', host: '0.0.0.0', port: 8080 }), 'https://vantage.example');
  t.equal(publicBaseUrl({ public_url: 'https://vantage.example/cp//', host: '0.0.0.0', port: 8080 }), 'https://vantage.example/cp', 'a path prefix is kept');
  t.equal(publicBaseUrl({ public_url: undefined, host: '127.0.0.1', port: 8080 }), 'http://127.0.0.1:8080');
  t.equal(publicBaseUrl({ public_url: undefined, host: '0.0.0.0', port: 9000 }), 'http://127.0.0.1:9000', 'the unspecified address is no host: loopback');
  t.equal(publicBaseUrl({ public_url: undefined, host: '::', port: 9000 }), 'http://127.0.0.1:9000');
  t.equal(publicBaseUrl({ public_url: undefined, host: '::1', port: 9000 }), 'http://[::1]:9000');
  t.equal(publicBaseUrl({ public_url: undefined, host: 'cp.internal', port: 80 }), 'http://cp.internal:80');
});

for (const public_url of [undefined, 'https://vantage.example/']) {
  t.test(`a forged Host header never reaches a handed-out URL (public_url ${public_url ?? 'unset'})`, async (t) => {
    const { app, sql, url, deps } = await testApp(t, { config: { public_url, host: '0.0.0.0', port: 8443 } });
    const base = public_url ? 'https://vantage.example' : 'http://127.0.0.1:8443';
    t.equal(publicBaseUrl(deps.config), base);
    const u = await registerUser(app);
    const forged = 'evil.example:666';

    const created = await viaHost(url, forged, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'backup', type: 'heartbeat', config: { period_s: 3600 } } });
    t.equal(created.status, 201);
    t.equal(created.body.data.heartbeat.url, `${base}/v1/heartbeat/${created.body.data.heartbeat.token}`, 'create');
    const id = created.body.data.id as string;
    const rotated = await viaHost(url, forged, 'POST', `/v1/monitors/${id}/heartbeat/rotate`, { token: u.access_token });
    t.equal(rotated.body.data.url, `${base}/v1/heartbeat/${rotated.body.data.token}`, 'rotate');
    const imported = await viaHost(url, forged, 'POST', '/v1/monitors/import', { token: u.access_token, body: { monitors: [{ name: 'cron', type: 'heartbeat', config: { period_s: 600 } }] } });
    t.equal(imported.status, 200);
    t.match(imported.body.data.items[0].heartbeat.url, new RegExp(`^${base.replace(/\./g, '\\.')}/v1/heartbeat/hb_`), 'import');

    // A check whose output names an artifact of this monitor: its URL is signed under the configured base.
    const path = artifactPath(id, 'a'.repeat(64));
    await sql.begin((tx) => storeControlCheck(tx, {
      monitor_id: id, interval_s: 3600, scheduled_at: new Date(), started_at: new Date(), finished_at: new Date(),
      success: true, error: null, error_class: null, output: { screenshot_url: path },
    }));
    const checks = await viaHost(url, forged, 'GET', `/v1/monitors/${id}/checks`, { token: u.access_token });
    t.equal(checks.status, 200);
    t.match(checks.body.data.items[0].output.screenshot_url, new RegExp(`^${base.replace(/\./g, '\\.')}${path}\\?expires=\\d+&signature=`), 'signed artifact URL');
    t.notMatch(JSON.stringify([created, rotated, imported, checks]), /evil\.example/, 'the forged host appears nowhere');
  });
}
