import { connect } from 'node:net';
import type { Server } from 'node:http';
import t from 'tap';
import { NODE_WS_PATH } from '@vantage/shared-protocol';
import { testApp } from '../test-support/app.js';
import { makeToken, waitFor } from './test-harness.js';
import { TestNode } from '../test-support/test-node.js';

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

/** What a raw client saw: the bytes the server sent, and whether the server closed the socket. */
interface Seen { text: string; status: number | null; closed_by_server: boolean }

/**
 * Send `request` on a fresh TCP connection and wait (at most `wait_ms`) for the server to answer
 * and close it. A socket still open then is destroyed by us and reported as not closed.
 */
function raw(port: number, request: string, wait_ms = 20_000): Promise<Seen> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let closed_by_server = false;
    const timer = setTimeout(() => socket.destroy(), wait_ms);
    socket.on('data', (d) => { text += d.toString('latin1'); });
    socket.on('end', () => { closed_by_server = true; socket.end(); });
    socket.on('error', () => { closed_by_server = true; });
    socket.on('close', () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ text, status: status ? Number(status) : null, closed_by_server });
    });
    socket.write(request);
  });
}

const upgradeTo = (path: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: cp\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;

const openConnections = (server: Server) => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

t.test('every upgrade request off the node path gets the route\'s answer and its socket is closed', async (t) => {
  const { server, url } = await testApp(t);
  const port = Number(new URL(url).port);
  const requests = [
    upgradeTo('/v1/nodes'),
    upgradeTo('/v1/openapi.json'),
    upgradeTo('/no/such/path'),
    upgradeTo('/v1/nodes?page=1', 'Authorization: Bearer sk_live_bogus\r\n'),
    'GET /v1/nodes HTTP/1.1\r\nHost: cp\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n',
  ];
  const expected = [200, 200, 404, 401, 200];
  // 400 requests in waves of 50 at once: each one answered and closed, none left open.
  for (let wave = 0; wave < 8; wave++) {
    const seen = await Promise.all(Array.from({ length: 50 }, (_, i) => raw(port, requests[(wave * 50 + i) % requests.length]!)));
    seen.forEach((s, i) => {
      const which = (wave * 50 + i) % requests.length;
      if (s.status !== expected[which]) t.fail(`request ${which}: got ${s.status ?? 'no answer'} (want ${expected[which]})`);
      if (!s.closed_by_server) t.fail(`request ${which}: socket left open by the server`);
    });
  }
  const one = await raw(port, upgradeTo('/v1/nodes'));
  t.match(one.text, /Connection: close/i);
  t.match(one.text, /"items":/, 'the route\'s normal JSON answer');
  await t.resolves(waitFor(async () => (await openConnections(server as Server)) === 0), 'no connection left open on the server');
});

t.test('odd request targets carrying Upgrade are answered and closed too', async (t) => {
  const { server, url } = await testApp(t);
  const port = Number(new URL(url).port);
  const targets = ['*', 'http://elsewhere.example/v1/nodes', `http://cp${NODE_WS_PATH}`, '//', '/%00', '/%ZZ', `${NODE_WS_PATH}?x=%ZZ`, '/v1/nodes/../../etc/passwd', '/' + 'a'.repeat(8000)];
  for (const target of targets) {
    const seen = await raw(port, upgradeTo(target));
    t.ok(seen.status !== null && seen.status !== 101 ? seen.status < 500 || seen.status === 503 : false, `${target.slice(0, 40)}: answered (${seen.status})`);
    t.ok(seen.closed_by_server, `${target.slice(0, 40)}: closed`);
  }
  const pipelined = await raw(port, 'GET /v1/nodes HTTP/1.1\r\nHost: cp\r\n\r\n' + upgradeTo('/v1/nodes'));
  t.equal((pipelined.text.match(/HTTP\/1\.1 200/g) ?? []).length, 2, 'a keep-alive request then an upgrade on the same connection: both answered');
  t.ok(pipelined.closed_by_server);
  const toNode = await raw(port, 'GET /v1/nodes HTTP/1.1\r\nHost: cp\r\n\r\n' + upgradeTo(NODE_WS_PATH, 'Authorization: Bearer nk_unknown\r\n'));
  t.match(toNode.text, /^HTTP\/1\.1 200 [\s\S]*\r\n\r\n\{[\s\S]*\}HTTP\/1\.1 401 /, 'the node path answers after the pipelined response, not inside it');
  t.ok(toNode.closed_by_server);
  await t.resolves(waitFor(async () => (await openConnections(server as Server)) === 0), 'no connection left open on the server');
});

t.test('malformed node upgrades are refused with 400 and closed; a body is refused too', async (t) => {
  const { url } = await testApp(t);
  const port = Number(new URL(url).port);
  const token = 'Authorization: Bearer ent_' + 'a'.repeat(43) + '\r\n';
  const cases: Array<[string, string]> = [
    ['missing key', `GET ${NODE_WS_PATH} HTTP/1.1\r\nHost: cp\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n${token}\r\n`],
    ['bad key', upgradeTo(NODE_WS_PATH, token).replace(KEY, 'short')],
    ['bad version', upgradeTo(NODE_WS_PATH, token).replace('Version: 13', 'Version: 99')],
    ['h2c to the node path', `GET ${NODE_WS_PATH} HTTP/1.1\r\nHost: cp\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n${token}\r\n`],
    ['POST', upgradeTo(NODE_WS_PATH, token).replace('GET', 'POST')],
    ['body on another path', 'POST /v1/enrollment-tokens HTTP/1.1\r\nHost: cp\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: 2\r\n\r\n{}'],
  ];
  for (const [name, request] of cases) {
    const seen = await raw(port, request);
    t.equal(seen.status, 400, name);
    t.ok(seen.closed_by_server, `${name}: closed`);
    t.match(seen.text, /"code":"(VALIDATION_FAILED|REQUEST_BODY_INVALID)"/, `${name}: error envelope`);
  }
});

t.test('a node upgrade that never says anything is closed (hello timeout)', async (t) => {
  const { url, sql } = await testApp(t, { config: { hello_timeout_ms: 500 } });
  const port = Number(new URL(url).port);
  const seen = await raw(port, upgradeTo(NODE_WS_PATH, `Authorization: Bearer ${await makeToken(sql)}\r\n`));
  t.equal(seen.status, 101);
  t.ok(seen.closed_by_server, 'the server ends the silent socket');
});

t.test('upgrade attempts are counted per source address: 429 with Retry-After before the upgrade', async (t) => {
  const { url, sql } = await testApp(t, { config: { rate_limit_upgrades: 5, rate_limit_window_s: 3600, trust_proxy: true } });
  const port = Number(new URL(url).port);
  const from = (ip: string) => `X-Forwarded-For: ${ip}\r\n`;
  const statuses: Array<number | null> = [];
  for (let i = 0; i < 6; i++) statuses.push((await raw(port, upgradeTo('/v1/nodes', from('198.18.7.1')))).status);
  t.same(statuses, [200, 200, 200, 200, 200, 429]);
  const limited = await raw(port, upgradeTo(NODE_WS_PATH, from('198.18.7.1')));
  t.equal(limited.status, 429, 'the node path too');
  t.match(limited.text, /Retry-After: \d+/);
  t.match(limited.text, /X-RateLimit-Limit: 5/);
  t.match(limited.text, /"code":"RATE_LIMIT_EXCEEDED"/);
  t.ok(limited.closed_by_server);
  // Nodes from other addresses (a reconnect storm from many IPs) are not affected.
  for (let i = 0; i < 20; i++) {
    const node = await TestNode.connect(url, await makeToken(sql), { 'x-forwarded-for': `198.18.8.${i + 1}` });
    node.close();
  }
  t.pass('20 nodes from 20 addresses upgraded');
});

t.test('invalid node credentials are counted per source address', async (t) => {
  const { url, sql } = await testApp(t, { config: { rate_limit_invalid_credentials: 3, rate_limit_window_s: 3600, trust_proxy: true } });
  const from = { 'x-forwarded-for': '198.18.9.1' };
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const err = await TestNode.connect(url, 'nk_' + String(i).repeat(43), from).then((n) => { n.close(); return null; }, (e: { status: number }) => e);
    statuses.push(err?.status ?? 101);
  }
  t.same(statuses, [401, 401, 401, 429, 429]);
  const good = await TestNode.connect(url, await makeToken(sql), from).then((n) => { n.close(); return 101; }, (e: { status: number }) => e.status);
  t.equal(good, 429, 'a blocked address is refused before its credential is looked at');
  const other = await TestNode.connect(url, await makeToken(sql), { 'x-forwarded-for': '198.18.9.2' });
  other.close();
  t.pass('another address is not affected');
});
