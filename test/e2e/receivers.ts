import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * Real HTTP receivers for alert notifications and webhook events, on the control-plane side of
 * the test network (127.0.0.1 of the root namespace: a private address the control plane reaches
 * only because the operator's list VANTAGE_DELIVERY_ALLOW_CIDRS names it). Each records what it
 * gets and answers the way the service it stands in for does, checking the documented payload:
 *
 * - `webhook`: Standard Webhooks (https://www.standardwebhooks.com): verified with the endpoint's or
 *   channel's secret by the reference library (`standardwebhooks`); a bad signature is 401.
 * - `slack`: an incoming webhook (https://api.slack.com/messaging/webhooks): JSON with `text`
 *   and/or `blocks`; answers `ok`, else 400 `invalid_payload`.
 * - `pagerduty`: Events API v2 (https://developer.pagerduty.com/docs/events-api-v2/overview/):
 *   `routing_key` (32 characters), `event_action` trigger/acknowledge/resolve, `dedup_key`, and
 *   for trigger a `payload` with `summary`, `source`, `severity`; answers 202
 *   `{status: "success", dedup_key}`, else 400 `{status: "invalid event"}`.
 */

export type ReceiverKind = 'webhook' | 'slack' | 'pagerduty';

/** One request as the receiver saw it. */
export interface ReceivedCall {
  at_ms: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The parsed JSON body (null when it is not JSON). */
  json: any;
  /** Whether the request met the service's contract (webhook: the signature verified). */
  accepted: boolean;
  /** Why not, when it did not. */
  problem: string | null;
}

export interface Receiver {
  kind: ReceiverKind;
  /** `http://127.0.0.1:<port>` (append any path: `/hooks/a`). */
  origin: string;
  /** Every request, accepted or not, in arrival order (kept across stop/start). */
  calls: ReceivedCall[];
  /** Accepted calls, optionally only those to `path`. */
  accepted(path?: string): ReceivedCall[];
  /** Webhook receivers: verify requests to `path` with `secret` (`whsec_…`). */
  setSecret(path: string, secret: string): void;
  /** Answer every request `ms` later (0: at once): keeps sends in flight, for crash tests. */
  setDelay(ms: number): void;
  /** Stop listening (connects are refused meanwhile) and listen again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

interface Teardown { teardown(fn: () => unknown): void }

function checkSlack(json: any): string | null {
  if (!json || typeof json !== 'object') return 'body is not a JSON object';
  if (typeof json.text !== 'string' && !Array.isArray(json.blocks)) return 'neither text nor blocks';
  if (Array.isArray(json.blocks) && json.blocks.some((b: any) => typeof b?.type !== 'string')) return 'a block without type';
  return null;
}

function checkPagerDuty(json: any): string | null {
  if (!json || typeof json !== 'object') return 'body is not a JSON object';
  if (typeof json.routing_key !== 'string' || json.routing_key.length !== 32) return 'routing_key must be 32 characters';
  if (!['trigger', 'acknowledge', 'resolve'].includes(json.event_action)) return `event_action ${json.event_action}`;
  if (typeof json.dedup_key !== 'string' || json.dedup_key === '') return 'no dedup_key';
  if (json.event_action === 'trigger') {
    const p = json.payload;
    if (!p || typeof p.summary !== 'string' || typeof p.source !== 'string') return 'trigger without payload.summary/source';
    if (!['critical', 'error', 'warning', 'info'].includes(p.severity)) return `payload.severity ${p.severity}`;
  }
  return null;
}

/** Start a receiver of `kind` on 127.0.0.1 (any free port, kept across stop/start). Closed at teardown. */
export async function startReceiver(t: Teardown, kind: ReceiverKind): Promise<Receiver> {
  const calls: ReceivedCall[] = [];
  const secrets = new Map<string, Webhook>();
  let delay_ms = 0;
  const handle = (req: IncomingMessage, body: string): { status: number; answer: string; problem: string | null; json: any } => {
    let json: any = null;
    try { json = JSON.parse(body); } catch { /* recorded as null */ }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (kind === 'webhook') {
      const wh = secrets.get(path);
      if (!wh) return { status: 404, answer: 'no secret for this path', problem: 'unknown path', json };
      try {
        wh.verify(body, { 'webhook-id': String(req.headers['webhook-id'] ?? ''), 'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''), 'webhook-signature': String(req.headers['webhook-signature'] ?? '') });
      } catch (err) {
        return { status: 401, answer: 'bad signature', problem: `signature: ${(err as Error).message}`, json };
      }
      return { status: 200, answer: 'ok', problem: null, json };
    }
    const problem = kind === 'slack' ? checkSlack(json) : checkPagerDuty(json);
    if (kind === 'slack') return problem ? { status: 400, answer: 'invalid_payload', problem, json } : { status: 200, answer: 'ok', problem, json };
    return problem
      ? { status: 400, answer: JSON.stringify({ status: 'invalid event', message: problem }), problem, json }
      : { status: 202, answer: JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: json.dedup_key }), problem, json };
  };
  const make = (): Server => createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const got = handle(req, body);
      // Recorded on arrival: what the receiver saw, even when its sender dies before the answer.
      calls.push({ at_ms: Date.now(), path: new URL(req.url ?? '/', 'http://x').pathname, headers: req.headers, body, json: got.json, accepted: got.problem === null, problem: got.problem });
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(got.status, { 'content-type': got.answer.startsWith('{') ? 'application/json' : 'text/plain' }).end(got.answer);
      };
      if (delay_ms > 0) setTimeout(answer, delay_ms);
      else answer();
    });
  });
  let server: Server | null = make();
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const stop = async () => {
    const s = server;
    server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  t.teardown(stop);
  return {
    kind, origin: `http://127.0.0.1:${port}`, calls,
    accepted: (path) => calls.filter((c) => c.accepted && (path === undefined || c.path === path)),
    setSecret: (path, secret) => { secrets.set(path, new Webhook(secret)); },
    setDelay: (ms) => { delay_ms = ms; },
    stop,
    async start() {
      if (server) return;
      const s = make();
      await new Promise<void>((resolve, reject) => { s.once('error', reject); s.listen(port, '127.0.0.1', () => resolve()); });
      server = s;
    },
    close: stop,
  };
}

/** Distinct values of header `name` among `calls`, and how many calls repeated one (at-least-once delivery). */
export function dedupe(calls: ReceivedCall[], name = 'webhook-id'): { unique: string[]; repeats: number } {
  const ids = calls.map((c) => String(c.headers[name] ?? ''));
  const unique = [...new Set(ids)];
  return { unique, repeats: ids.length - unique.length };
}
