/**
 * The API client side of test/bench/hub-bench.ts: probe groups created and polled over real HTTP
 * as API clients do, at a fixed rate (open loop: a slow server does not slow the arrivals), and
 * timed GETs. Requests go round-robin to the instances' URLs; each carries an X-Forwarded-For
 * address from a pool of 250 (the instances trust the proxy header), so per-address rate-limit
 * rows are spread as they are with many real clients.
 */
import { Agent, request as httpRequest } from 'node:http';
import { quantile } from './stats.js';

/** One HTTP answer: status, parsed JSON body (or null), size, time in ms (sent → last byte received), Retry-After. */
export interface Answer { status: number; body: any; bytes: number; ms: number; retry_after: string | null }

/**
 * A round-robin JSON client over the instances' base URLs, on node:http with keep-alive sockets
 * (lighter than fetch: at thousands of polls per second the client must not be what saturates).
 */
export class Client {
  private next = 0;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
  constructor(private readonly bases: string[]) {}

  /** Send one request; network errors become status 0. */
  request(method: string, path: string, body?: unknown): Promise<Answer> {
    const i = this.next++;
    const url = new URL(path, this.bases[i % this.bases.length]!);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { 'x-forwarded-for': `203.0.113.${(i % 250) + 1}` };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const t0 = performance.now();
    return new Promise<Answer>((resolve) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          // Timed to the last byte: what the server and the network took, not this process's JSON parsing
          // (a 330 KB group takes the client 2-3 ms to parse, on the cores the instance needs).
          const ms = performance.now() - t0;
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any = null;
          try { parsed = JSON.parse(text); } catch { /* not JSON */ }
          const retry = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, body: parsed, bytes: Buffer.byteLength(text), ms, retry_after: typeof retry === 'string' ? retry : null });
        });
        res.on('error', () => resolve({ status: 0, body: null, bytes: 0, ms: performance.now() - t0, retry_after: null }));
      });
      // A network error is status 0; its code is the body (ECONNRESET: a kept-alive socket the server closed as it was reused).
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, body: err.code ?? err.message, bytes: 0, ms: performance.now() - t0, retry_after: null }));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** How one probe group went: POST time, POST → completed_at, POST → first poll that saw it ended. */
export interface GroupRun {
  post_status: number;
  post_ms: number;
  /** completed_at (server clock, same machine) − the time the POST was sent; null when it never ended. */
  completed_ms: number | null;
  seen_ms: number | null;
  polls: number;
  /** A poll answered with completed_at of 1970 or null on an ended group (inconsistent read). */
  bad_completed_at: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let reported = 0;

/**
 * Create one tcp probe group (`body` adds node fields) and poll `GET /v1/probe/tasks/{id}` every
 * `poll_ms` until it ends or `deadline_ms` passes.
 */
export async function runGroup(client: Client, body: Record<string, unknown>, opts: { poll_ms: number; deadline_ms: number }): Promise<GroupRun> {
  const sent = Date.now();
  const post = await client.request('POST', '/v1/probe/tcp', { target: '198.18.0.10:443', ...body });
  const run: GroupRun = { post_status: post.status, post_ms: post.ms, completed_ms: null, seen_ms: null, polls: 0, bad_completed_at: 0 };
  if (post.status !== 202) {
    if (post.status !== 503 && reported++ < 3) process.stderr.write(`POST refused: ${post.status} ${JSON.stringify(post.body)?.slice(0, 300)}\n`);
    return run;
  }
  const task_id = post.body.data.task_id as string;
  while (Date.now() - sent < opts.deadline_ms) {
    await sleep(opts.poll_ms);
    const got = await client.request('GET', `/v1/probe/tasks/${task_id}`);
    run.polls++;
    const data = got.status === 200 ? got.body.data : null;
    if (!data || (data.status !== 'completed' && data.status !== 'failed')) continue;
    const at = data.completed_at ? Date.parse(data.completed_at) : 0;
    if (at < sent - 60_000) { run.bad_completed_at++; continue; }
    run.completed_ms = Math.max(0, at - sent);
    run.seen_ms = Date.now() - sent;
    return run;
  }
  return run;
}

/** One rate step of the sweep. */
export interface Step {
  rate: number; groups: number; completed: number; shed: number; errors: number;
  /** CPU time the instances used during the step, per group created, ms. */
  cpu_ms_per_group: number;
  /** Wall time of the step (first POST to last group ended), ms: with the idle CPU rate it gives the net cost per group. */
  elapsed_ms: number;
  /** CPU time this client process used during the step, per group created, ms. */
  client_cpu_ms_per_group: number;
  p50_ms: number; p99_ms: number; seen_p50_ms: number; post_p50_ms: number; post_p99_ms: number; bad_completed_at: number;
  retry_after: string | null;
}

/**
 * Create `rate` groups per second for `seconds` (evenly spaced, not waiting for earlier ones),
 * each polled as {@link runGroup} does, and summarise once all ended or hit the deadline.
 * Latency figures are over the groups that ended; shed = 503 answers to the POST.
 */
export async function rateStep(client: Client, rate: number, seconds: number, body: Record<string, unknown>, opts: { poll_ms: number; deadline_ms: number; cpu_ms: () => Promise<number> }): Promise<Step> {
  const n = Math.max(1, Math.round(rate * seconds));
  const cpu0 = await opts.cpu_ms();
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  const start = performance.now();
  const runs: Array<Promise<GroupRun>> = [];
  let retry_after: string | null = null;
  for (let i = 0; i < n; i++) {
    const at = start + (i * 1000) / rate;
    const wait = at - performance.now();
    if (wait > 1) await sleep(wait);
    runs.push(runGroup(client, body, opts));
  }
  const done = await Promise.all(runs);
  const cpu_ms_per_group = ((await opts.cpu_ms()) - cpu0) / n;
  const elapsed_ms = performance.now() - t0;
  const own = process.cpuUsage(own0);
  const client_cpu_ms_per_group = (own.user + own.system) / 1000 / n;
  const ended = done.filter((r) => r.completed_ms !== null);
  const posted = done.filter((r) => r.post_status === 202);
  const shed = done.filter((r) => r.post_status === 503);
  if (shed.length) retry_after = 'yes';
  const lat = ended.map((r) => r.completed_ms!);
  return {
    rate, groups: n, completed: ended.length, shed: shed.length, cpu_ms_per_group, elapsed_ms, client_cpu_ms_per_group,
    errors: done.filter((r) => r.post_status !== 202 && r.post_status !== 503).length + (posted.length - ended.length),
    p50_ms: quantile(lat, 0.5), p99_ms: quantile(lat, 0.99), seen_p50_ms: quantile(ended.map((r) => r.seen_ms!), 0.5),
    post_p50_ms: quantile(posted.map((r) => r.post_ms), 0.5), post_p99_ms: quantile(posted.map((r) => r.post_ms), 0.99),
    bad_completed_at: done.reduce((a, r) => a + r.bad_completed_at, 0), retry_after,
  };
}

/** One timed request: its path, when it was sent (epoch ms) and its time, ms. */
export interface TimedRequest { path: string; at_ms: number; ms: number }

/**
 * `count` GETs of `path`, `concurrency` at a time (`path` may vary per call).
 * @returns times in ms, each request (path, sent at, time) and the last answer's size
 */
export async function timedGets(client: Client, count: number, concurrency: number, path: (i: number) => string): Promise<{ ms: number[]; requests: TimedRequest[]; statuses: Map<number, number>; bytes: number }> {
  const ms: number[] = [];
  const requests: TimedRequest[] = [];
  const statuses = new Map<number, number>();
  let bytes = 0;
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const p = path(next++);
      const at_ms = Date.now();
      const a = await client.request('GET', p);
      ms.push(a.ms);
      requests.push({ path: p, at_ms, ms: a.ms });
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      bytes = a.bytes;
    }
  }));
  return { ms, requests, statuses, bytes };
}
