import { NODE_WS_PATH, parseServerMessage, type ServerMessage } from '@vantage/shared-protocol';
import WebSocket from 'ws';

/**
 * A light node that speaks the real protocol, for tests and the hub benchmark: it connects with a
 * bearer, lets the caller send frames, and queues received server frames for `next`.
 * Unparseable server frames, and assignments frames with an assignment a node would refuse, fail
 * the waiting `next` (they would be a hub bug).
 */
export class TestNode {
  private queue: ServerMessage[] = [];
  private waiters: Array<{ type?: string; resolve: (m: ServerMessage) => void; reject: (e: Error) => void }> = [];
  /** Resolves with the close code and reason once the socket closes. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Called for every frame (before queueing); return true to consume it (e.g. auto-answer). */
  onFrame: ((m: ServerMessage) => boolean) | null = null;
  /** Answer the hub's heartbeats (and do not queue them), like a live agent. Tests of silence turn it off. */
  autoHeartbeat = true;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => {
      for (const w of this.waiters.splice(0)) w.reject(new Error(`closed ${code} ${reason.toString()}`));
      resolve({ code, reason: reason.toString() });
    }));
    ws.on('message', (data) => {
      const parsed = parseServerMessage(data as Buffer);
      // An assignment a node would drop (messages.ts splitAssignments) is a hub bug too: the feed withholds those.
      const refused = parsed.ok && 'refused' in parsed.value ? parsed.value.refused : undefined;
      if (!parsed.ok || refused) {
        const error = parsed.ok ? `refused assignments: ${JSON.stringify(refused)}` : parsed.error;
        for (const w of this.waiters.splice(0)) w.reject(new Error(`bad server frame: ${error}`));
        return;
      }
      if (this.onFrame?.(parsed.value)) return;
      if (parsed.value.type === 'heartbeat' && this.autoHeartbeat) {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'heartbeat', sent_at: Date.now() }));
        return;
      }
      const i = this.waiters.findIndex((w) => !w.type || w.type === parsed.value.type);
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(parsed.value);
      else this.queue.push(parsed.value);
    });
  }

  /**
   * Open a connection to `base` (`http://127.0.0.1:port`) with `Authorization: Bearer <bearer>`.
   * Rejects with an Error whose `status` and `body` carry a refused upgrade's HTTP answer.
   */
  static connect(base: string, bearer: string | null, headers: Record<string, string> = {}): Promise<TestNode> {
    const url = base.replace(/^http/, 'ws') + NODE_WS_PATH;
    const ws = new WebSocket(url, { headers: { ...headers, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) } });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new TestNode(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body })));
      });
      ws.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' || Buffer.isBuffer(message) ? message : JSON.stringify(message));
  }

  /** The next frame (of `type`, skipping others only when `type` is given and they are queued later). */
  next<T extends ServerMessage['type']>(type?: T, timeout_ms = 20_000): Promise<Extract<ServerMessage, { type: T }>> {
    const i = this.queue.findIndex((m) => !type || m.type === type);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0] as Extract<ServerMessage, { type: T }>);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type ?? 'frame'} within ${timeout_ms} ms`)), timeout_ms);
      this.waiters.push({
        type,
        resolve: (m) => { clearTimeout(timer); resolve(m as Extract<ServerMessage, { type: T }>); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
    });
  }

  close(): void {
    this.ws.close();
  }
}

type AssignmentFrame = Extract<ServerMessage, { type: 'assignments.full' | 'assignments.delta' }>;

/**
 * Every assignments frame `node` receives from its first full set on (the one sent at enrollment,
 * taken from the queue), acked as an agent would, kept in `frames`; `holds(id)` is true when the
 * node's current set, as the frames built it (a delta applies only on its `from_version`), has
 * monitor `id`.
 */
export async function recordAssignments(node: TestNode): Promise<{ frames: AssignmentFrame[]; holds: (monitor_id: string) => boolean }> {
  const frames: AssignmentFrame[] = [];
  const held = new Set<string>();
  let version = -1;
  const take = (m: AssignmentFrame) => {
    frames.push(m);
    if (m.type === 'assignments.full') {
      held.clear();
      for (const a of m.assignments) held.add(a.monitor_id);
      version = m.version;
    } else if (m.from_version === version) {
      for (const id of m.remove) held.delete(id);
      for (const a of m.upsert) held.add(a.monitor_id);
      version = m.version;
    }
    node.send({ type: 'assignments.ack', version });
  };
  take(await node.next('assignments.full'));
  node.onFrame = (m) => {
    if (m.type !== 'assignments.full' && m.type !== 'assignments.delta') return false;
    take(m);
    return true;
  };
  return { frames, holds: (id) => held.has(id) };
}
