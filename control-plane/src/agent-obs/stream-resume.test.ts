import t from 'tap';
import { createCheckStore } from '../checks/ingest.js';
import { loadConfig } from '../config/index.js';
import { createMailer } from '../delivery/mailer.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { controlPlaneProcess, freePort } from '../test-support/control-plane-process.js';
import { testDatabase } from '../test-support/db.js';
import { sseFrames } from '../test-support/sse.js';
import { withAgentObs } from './ingest.js';
import { llmResult, placeBacking, roundsFrom } from './test-support.js';

/*
 * The event stream across a kill -9 of the control plane (docs/api/agent-obs.md "Event stream"):
 * a client reads some events, the process is killed, events are recorded meanwhile (by another
 * instance's ingest: this test's own result sink on the same database), the process starts again,
 * and the client resumes with Last-Event-ID: it gets exactly the events it missed, in order, then
 * the live ones, none twice.
 */

t.setTimeout(400_000);

type Frame = { event: string; id?: string; data: any };

/** The frames of `res`, read `n` at a time (bounded: a stream that stops short fails the test). */
function frameReader(res: Response) {
  const it = sseFrames(res);
  return {
    async read(n: number, timeout_ms = 90_000): Promise<Frame[]> {
      const out: Frame[] = [];
      const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`only ${out.length} of ${n} frames within ${timeout_ms} ms`)), timeout_ms).unref());
      while (out.length < n) {
        const next = await Promise.race([it.next(), timer]);
        if (next.done) throw new Error(`the stream ended after ${out.length} of ${n} frames`);
        out.push(next.value);
      }
      return out;
    },
    close: () => it.return(undefined),
  };
}

t.test('Last-Event-ID after a kill -9: exactly the missed events, then live ones', async (t) => {
  const { url: database_url, sql } = await testDatabase(t);
  const port = await freePort();
  const base_url = `http://127.0.0.1:${port}`;
  const cp = controlPlaneProcess(t, {
    VANTAGE_DATABASE_URL: database_url, VANTAGE_HOST: '127.0.0.1', VANTAGE_PORT: String(port), VANTAGE_INSTANCE_ID: 'agent-obs-stream-test',
    VANTAGE_LOG_LEVEL: 'warn', VANTAGE_DATA_DIR: '/tmp/vantage-agent-obs-stream', VANTAGE_PROBE_ALLOW_CIDRS: '127.0.0.0/8', VANTAGE_PLAN: 'business',
    VANTAGE_RATE_LIMIT_KEYED: '100000', VANTAGE_RATE_LIMIT_ANONYMOUS: '100000', VANTAGE_REGISTRATION: 'open', VANTAGE_AGENT_OBS_STREAM_POLL_MS: '500',
  }, 120_000);
  await cp.start(base_url);
  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await fetch(`${base_url}${path}`, {
      method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json() as { data?: any };
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const auth = await call('POST', '/v1/auth/register', undefined, { email: `stream-${Date.now()}@example.test`, password: 'stream-test-password-1' });
  const token = auth.access_token as string;
  const m = await call('POST', '/v1/agent-obs/monitors', token, {
    agent_name: 'stream bot', type: 'tool', endpoint_url: 'http://127.0.0.1:9/tool', frequency_seconds: 10, failure_threshold: {}, budget_per_check_usd: 0.001,
  });
  const [node] = await placeBacking(sql, m.check_monitor_id, 1);

  // Another instance's ingest on the same database (the result sink nodes report to).
  const config = loadConfig({}, { database_url, log_level: 'silent' });
  const log = createLogger('silent');
  const sink = createResultSink({ sql, log, config, checks: withAgentObs(createCheckStore({ config }), { config, log, mail: createMailer({ sql, log, config }) }) });
  const nextRound = roundsFrom(m.check_monitor_id, 10, -1000);
  const record = async (n: number) => {
    const batch = Array.from({ length: n }, () => llmResult(m.check_monitor_id, nextRound(), { type: 'tool_api' }));
    const out = await sink.ingest(node!, batch);
    t.same(out.rejected, [], 'results accepted');
  };
  const open = (last?: string) => fetch(`${base_url}/v1/agent-obs/events/stream`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(last ? { 'last-event-id': last } : {}) },
  });
  const allIds = async () => (await sql<{ id: string }[]>`SELECT id FROM agent_obs_events ORDER BY seq`).map((r) => r.id);

  const first = await open();
  t.equal(first.status, 200);
  t.match(first.headers.get('content-type'), /text\/event-stream/);
  const a = frameReader(first);
  await record(3);
  const seen = await a.read(3);
  t.same(seen.map((f) => f.event), ['agent_obs.event', 'agent_obs.event', 'agent_obs.event']);
  t.same(seen.map((f) => f.id), (await allIds()).slice(0, 3), 'live events in commit order');
  t.match(seen[0]!.data, { monitor_id: m.id, success: true, cost_usd: 0.001 });
  t.equal(seen[0]!.data.id, seen[0]!.id, 'the frame id is the event id');
  await a.close();

  await cp.kill9();
  await record(4); // while the control plane is down
  await cp.start(base_url);

  const resumed = frameReader(await open(seen[2]!.id));
  const caught = await resumed.read(4);
  t.same(caught.map((f) => f.id), (await allIds()).slice(3, 7), 'exactly the four missed events, in order');
  await record(2);
  const live = await resumed.read(2);
  t.same(live.map((f) => f.id), (await allIds()).slice(7, 9), 'then the live ones, none repeated');
  await resumed.close();

  // Resuming from the newest event sends nothing old.
  const tail = frameReader(await open(live[1]!.id));
  await record(1);
  const one = await tail.read(1);
  t.equal(one[0]!.id, (await allIds())[9], 'only the new event');
  await tail.close();
});
