import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { NODE_WS_PATH } from '@vantage/shared-protocol';
import { testDatabase } from './test-support/db.js';
import { makeToken } from './hub/test-harness.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
/** Generous bound for the whole shutdown on a busy machine (the process's own deadline is 15 s). */
const EXIT_BOUND_MS = 60_000;

/** Open a raw socket to the control plane, send `text`, and report when the server closes it. */
function hold(port: number, text: string): { socket: Socket; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.on('data', () => {}); // keep reading (a 101 answer), never answer a close frame
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(text);
  return { socket, closed };
}

t.test('SIGTERM with every kind of socket open: the control plane exits cleanly and in bounded time', async (t) => {
  const { url: database_url, sql } = await testDatabase(t);
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...process.env, VANTAGE_DATABASE_URL: database_url, VANTAGE_HOST: '127.0.0.1', VANTAGE_PORT: '0',
      VANTAGE_LOG_LEVEL: 'info', VANTAGE_INSTANCE_ID: 'sigterm-test', VANTAGE_SHUTDOWN_GRACE_MS: '1000',
      VANTAGE_HELLO_TIMEOUT_MS: '60000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  let log = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      log += d.toString();
      const m = /"url":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(log);
      if (m) resolve(Number(m[1]));
    });
    child.stderr.on('data', (d: Buffer) => { log += d.toString(); });
    void exited.then(() => reject(new Error(`control plane exited before listening:\n${log}`)));
  });

  const ws = (path: string, bearer: string) =>
    `GET ${path} HTTP/1.1\r\nHost: cp\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${bearer}\r\n\r\n`;
  const open = [
    hold(port, 'GET /v1/nodes HTTP/1.1\r\nHost: cp\r\n'), // headers never finished
    hold(port, ''), // connected, silent
    hold(port, 'GET /v1/nodes HTTP/1.1\r\nHost: cp\r\n\r\n'), // answered, kept alive, idle
    hold(port, ws(NODE_WS_PATH, await makeToken(sql))), // upgraded node socket that never speaks nor answers close
    hold(port, ws('/v1/nodes', 'x')), // upgrade to another path
  ];
  // Ready, with its metrics (metrics/): the process wires both as it starts.
  const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
  t.equal(ready.status, 200, 'ready once listening');
  t.match(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), /^vantage_db_up 1$/m, 'metrics for a loopback scraper');
  // Let every request reach the server before the signal.
  await new Promise((r) => setTimeout(r, 500));
  t.match(log, /"level":40,.*"public_base_url":"http:\/\/127\.0\.0\.1:0".*VANTAGE_PUBLIC_URL is not set/, 'start-up says links fall back to the listening address');
  const sent_at = Date.now();
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    exited,
    new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), EXIT_BOUND_MS); }),
  ]);
  clearTimeout(timer);
  if (!outcome) for (const o of open) o.socket.destroy();
  t.ok(outcome, `exited after SIGTERM (within ${EXIT_BOUND_MS} ms)`);
  t.same(outcome, { code: 0, signal: null }, 'through the clean path, not the hard deadline');
  t.match(log, /"msg":"stopped"/);
  await Promise.all(open.map((o) => o.closed));
  t.pass(`every client socket was closed by the server (shutdown took ${Date.now() - sent_at} ms)`);
});
