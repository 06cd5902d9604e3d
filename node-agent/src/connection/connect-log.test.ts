/**
 * What the agent says about its link: an attempt that never connected is "could not connect to
 * <url>: <reason>; retrying in N s"; "connection lost" only for a link that was up.
 */
import net from 'node:net';
import t from 'tap';
import { PROTOCOL_VERSION, type NodeMessage } from '@vantage/shared-protocol';
import { Secret } from '../secret.js';
import { Connection } from './client.js';
import { ControlPlaneStub } from './test-support/control-plane-stub.js';
import { capturingLog, eventually, type LogLine } from './test-support/helpers.js';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const enroll = (token: string) => ({ secret: new Secret(token), first: { type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: 'test' } as NodeMessage });
const warnings = (lines: LogLine[]) => lines.filter((l) => l.level === 40).map((l) => l.msg);

t.test('a control plane that was never reached: "could not connect to <url>: <reason>", never "lost"', async (t) => {
  const port = await closedPort();
  const { log, lines } = capturingLog();
  const conn = new Connection({
    control_plane_url: `http://127.0.0.1:${port}`, greeting: () => enroll('ent_x'), onWelcome: () => {}, onMessage: () => {}, onDown: () => {},
    log, backoff: { min_ms: 50, max_ms: 100 },
  });
  const running = conn.run();
  t.teardown(async () => { await conn.stop(); await running.catch(() => {}); });
  await eventually(() => warnings(lines).length >= 2, 'two failed attempts logged', 30_000);
  const [first] = warnings(lines);
  t.match(first, new RegExp(`^could not connect to ws://127\\.0\\.0\\.1:${port}/v1/nodes/connect: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; retrying in \\d+(\\.\\d)? s$`));
  t.notOk(warnings(lines).some((m) => /lost/.test(m)), 'no "connection lost" for a link that never was');
  const line = lines.find((l) => l.msg === first)!;
  t.equal(typeof line.retry_in_ms, 'number');
  t.equal(line.url, `ws://127.0.0.1:${port}/v1/nodes/connect`);
});

t.test('a link that was up and went down: "connection lost"', async (t) => {
  const stub = new ControlPlaneStub();
  await stub.listen();
  t.teardown(() => stub.kill());
  const token = stub.issueToken();
  const { log, lines } = capturingLog();
  let welcomes = 0;
  const conn = new Connection({
    control_plane_url: stub.url, greeting: () => enroll(token), onWelcome: () => { welcomes++; }, onMessage: () => {}, onDown: () => {},
    log, backoff: { min_ms: 50, max_ms: 100 },
  });
  const running = conn.run();
  t.teardown(async () => { await conn.stop(); await running.catch(() => {}); });
  await eventually(() => welcomes === 1, 'welcome', 30_000);
  for (const s of stub.sockets) s.ws.terminate();
  await eventually(() => warnings(lines).length >= 1, 'the drop logged', 30_000);
  t.equal(warnings(lines)[0], 'control plane connection lost; reconnecting');
  t.notOk(warnings(lines).some((m) => /could not connect/.test(m)));
});
