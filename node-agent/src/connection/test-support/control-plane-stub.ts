import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  NODE_WS_PATH, PROTOCOL_VERSION, isEnrollProof, newId, newSecret, parseNodeMessage, resultEnvelopeSchema,
  type AssignmentInput, type NodeMessage, type ResultEnvelope, type ServerMessageInput,
} from '@vantage/shared-protocol';
import { WebSocketServer, type WebSocket } from 'ws';

export interface StubOptions {
  /** Port to listen on (0 = any; a restarted stub reuses the old one). */
  port?: number;
  heartbeat_interval_ms?: number;
  /** Send heartbeats to nodes (off to make the link look dead). Default true. */
  heartbeats?: boolean;
  /** Answer result.batch with result.ack. Default true. */
  auto_ack?: boolean;
  /**
   * Frames sent on a `hello` before its `welcome`, as a control plane of protocol 3 may (one that
   * registered the link while the hello was still being written).
   */
  before_welcome?: ServerMessageInput[];
}

/** A node socket held by the stub. */
export interface StubSocket {
  ws: WebSocket;
  node_id: string | null;
}

/**
 * A small in-process control plane speaking the real shared-protocol messages (NOT the real
 * control plane): enrollment tokens, node credentials, welcome, results stored by id (idempotent,
 * like `ON CONFLICT DO NOTHING`) and acked, assignments, close codes, refused upgrades (401 with the
 * docs/api/conventions.md envelope). Events: `message` (socket, NodeMessage), `connection` (socket).
 */
export class ControlPlaneStub extends EventEmitter {
  readonly server = http.createServer((_req, res) => res.writeHead(404).end());
  readonly wss = new WebSocketServer({ noServer: true });
  readonly tokens = new Set<string>();
  readonly credentials = new Map<string, string>();
  /** Node ids whose enrollment was confirmed (`enroll.confirm` with a valid proof). */
  readonly confirmed = new Set<string>();
  readonly results = new Map<string, ResultEnvelope>();
  readonly received: NodeMessage[] = [];
  readonly sockets = new Set<StubSocket>();
  /** result ids received in total, duplicates included. */
  deliveries = 0;
  auto_ack: boolean;
  assignments: { version: number; assignments: AssignmentInput[] } | null = null;
  #opts: StubOptions;

  constructor(opts: StubOptions = {}) {
    super();
    this.#opts = opts;
    this.auto_ack = opts.auto_ack ?? true;
    this.server.on('upgrade', (req, socket, head) => this.#upgrade(req, socket, head));
  }

  /** Listen on 127.0.0.1; resolves with the base URL (`http://127.0.0.1:<port>`). */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(this.#opts.port ?? 0, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A new valid enrollment token. */
  issueToken(): string {
    const token = newSecret('enrollment_token');
    this.tokens.add(token);
    return token;
  }

  #refuse(socket: Duplex, status: number, code: string, message: string): void {
    const body = JSON.stringify({ error: { code, message } });
    socket.end(`HTTP/1.1 ${status} Refused\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }

  #upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    if (req.url !== NODE_WS_PATH) return this.#refuse(socket, 404, 'NOT_FOUND', 'no such path');
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    let kind: 'token' | 'credential';
    if (bearer.startsWith('ent_')) {
      if (!this.tokens.has(bearer)) return this.#refuse(socket, 401, 'NODE_ENROLLMENT_TOKEN_INVALID', 'enrollment token unknown, used or expired');
      kind = 'token';
    } else if (this.credentials.has(bearer)) {
      kind = 'credential';
    } else {
      return this.#refuse(socket, 401, 'UNAUTHENTICATED', 'node credential invalid or revoked');
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.#attach(ws, kind, bearer));
  }

  #attach(ws: WebSocket, kind: 'token' | 'credential', bearer: string): void {
    const s: StubSocket = { ws, node_id: null };
    this.sockets.add(s);
    const interval_ms = this.#opts.heartbeat_interval_ms ?? 10_000;
    const beat = setInterval(() => {
      if (this.#opts.heartbeats !== false) this.send(s, { type: 'heartbeat', sent_at: Date.now() });
    }, interval_ms);
    ws.on('close', () => { clearInterval(beat); this.sockets.delete(s); });
    ws.on('error', () => undefined);
    let issued: string | null = null; // credential of this connection's welcome, until confirmed
    ws.on('message', (data: Buffer) => {
      const parsed = parseNodeMessage(data);
      if (!parsed.ok) {
        this.send(s, { type: 'error', code: 'VALIDATION_FAILED', message: parsed.error, ref: null });
        return;
      }
      const m = parsed.value;
      this.received.push(m);
      if (m.type === 'enroll' && kind === 'token' && this.tokens.delete(bearer)) {
        s.node_id = newId('node');
        issued = newSecret('node_credential');
        this.credentials.set(issued, s.node_id);
        this.#welcome(s, issued, interval_ms);
      } else if (m.type === 'enroll.confirm' && issued && isEnrollProof(m.proof, issued, s.node_id!)) {
        issued = null;
        this.confirmed.add(s.node_id!);
        this.send(s, { type: 'enroll.confirmed', node_id: s.node_id! });
      } else if (m.type === 'hello' && kind === 'credential') {
        s.node_id = this.credentials.get(bearer)!;
        for (const early of this.#opts.before_welcome ?? []) this.send(s, early);
        this.#welcome(s, null, interval_ms);
      } else if (m.type === 'result.batch') {
        const ids: string[] = [];
        for (const r of m.results) {
          const ok = resultEnvelopeSchema.safeParse(r);
          if (!ok.success) continue;
          this.deliveries++;
          if (!this.results.has(ok.data.result_id)) this.results.set(ok.data.result_id, ok.data);
          ids.push(ok.data.result_id);
        }
        if (this.auto_ack) this.send(s, { type: 'result.ack', batch_id: m.batch_id, result_ids: ids });
      }
      this.emit('message', s, m);
    });
    this.emit('connection', s);
  }

  #welcome(s: StubSocket, credential: string | null, heartbeat_interval_ms: number): void {
    this.send(s, {
      type: 'welcome', protocol_version: PROTOCOL_VERSION, node_id: s.node_id!, node_name: 'stub-node',
      heartbeat_interval_ms, server_time: new Date().toISOString(), credential,
    });
    if (this.assignments) this.send(s, { type: 'assignments.full', ...this.assignments });
  }

  /** Send a server message (or raw text) to one node socket. */
  send(s: StubSocket, message: ServerMessageInput | string): void {
    if (s.ws.readyState === s.ws.OPEN) s.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Send to every connected node. */
  broadcast(message: ServerMessageInput | string): void {
    for (const s of this.sockets) this.send(s, message);
  }

  /** Resolve with the first node message (from now on) matching `pred`; reject after `timeout_ms`. */
  waitFor<T extends NodeMessage = NodeMessage>(pred: (m: NodeMessage, s: StubSocket) => boolean, timeout_ms = 30_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const on = (s: StubSocket, m: NodeMessage) => {
        if (!pred(m, s)) return;
        clearTimeout(timer);
        this.off('message', on);
        resolve(m as T);
      };
      const timer = setTimeout(() => { this.off('message', on); reject(new Error(`stub: no matching message in ${timeout_ms} ms`)); }, timeout_ms);
      this.on('message', on);
    });
  }

  /** Resolve when `cond()` holds, re-checked on each node message; reject after `timeout_ms`. */
  async until(cond: () => boolean, timeout_ms = 30_000): Promise<void> {
    if (cond()) return;
    await this.waitFor(() => cond(), timeout_ms);
  }

  /** Close every node socket with `code` (e.g. a fatal 4001 or a transient 4008). */
  closeAll(code: number, reason = ''): void {
    for (const s of this.sockets) s.ws.close(code, reason);
  }

  /** Stop like a crashed process: sockets cut without a close frame, server closed. */
  async kill(): Promise<void> {
    for (const s of this.sockets) s.ws.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.wss.close();
  }
}
