import {
  HEARTBEAT_INTERVAL_MS, HEARTBEAT_MISSES_DEAD, LIMITS, closeCodeInfo, parseServerMessage,
  type NodeMessage, type ServerMessage, type WelcomeMessage,
} from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { Secret } from '../secret.js';
import { DEFAULT_BACKOFF, backoffDelay, type BackoffOptions } from './backoff.js';
import { AgentFatalError } from './errors.js';
import { describeRefusal, readRefusalBody } from './refusal.js';
import { nodeSocketUrl } from './url.js';

export interface ConnectionOptions {
  /** Control plane base URL (http/https); the socket goes to NODE_WS_PATH under it. */
  control_plane_url: string;
  /** Bearer secret and first message for the next attempt: `ent_` + `enroll`, or `nk_` + `hello`. Read per attempt. */
  greeting: () => { secret: Secret; first: NodeMessage };
  /** Called with `welcome`, before any other message; throw AgentFatalError to stop for good. */
  onWelcome: (welcome: WelcomeMessage) => void;
  /** Every later valid server message except heartbeats, in arrival order. */
  onMessage: (message: ServerMessage) => void;
  /** A frame that failed validation (after welcome), parsed as JSON when it was JSON, with the error. */
  onInvalid?: (json: unknown, error: string) => void;
  /** The welcomed link went down (the outbox sender forgets in-flight batches). */
  onDown: () => void;
  log: Logger;
  backoff?: BackoffOptions;
  /** Time allowed from upgrade to `welcome`, ms (default 30 s). */
  hello_timeout_ms?: number;
}

interface Outcome {
  welcomed: boolean;
  fatal: AgentFatalError | null;
  code: number;
  reason: string;
}

/**
 * The node's one outbound WebSocket (issue 5 item 3; DESIGN.md protocol). Each attempt upgrades with
 * `Authorization: Bearer …`, sends `enroll`/`hello`, waits for `welcome`, then exchanges
 * `heartbeat`s every `heartbeat_interval_ms` (from welcome) and drops the link when nothing arrived
 * for HEARTBEAT_MISSES_DEAD intervals (30 s by default). Transient failures (refused connection,
 * 5xx, transient close codes, dead link) reconnect after {@link backoffDelay}; fatal ones (close
 * codes marked fatal in shared-protocol, 401/403 on the upgrade) end {@link Connection.run} with an
 * {@link AgentFatalError}. Invalid frames are logged and dropped; the link stays up.
 */
export class Connection {
  readonly #o: ConnectionOptions;
  readonly #url: string;
  #ws: WebSocket | null = null;
  #welcomed = false;
  #stopping = false;
  #wake: (() => void) | null = null;

  constructor(opts: ConnectionOptions) {
    this.#o = opts;
    this.#url = nodeSocketUrl(opts.control_plane_url);
  }

  /** True while a welcomed link is open. */
  get connected(): boolean {
    return this.#welcomed && this.#ws?.readyState === WebSocket.OPEN;
  }

  /**
   * Connect and stay connected until {@link Connection.stop}.
   * @throws AgentFatalError when the control plane refuses this node for good.
   */
  async run(): Promise<void> {
    let attempt = 0;
    while (!this.#stopping) {
      const out = await this.#attempt();
      if (out.fatal) throw out.fatal;
      if (this.#stopping) break;
      if (out.welcomed) attempt = 0;
      const retry_in_ms = backoffDelay(attempt++, this.#o.backoff ?? DEFAULT_BACKOFF);
      this.#o.log.warn({ code: out.code, reason: out.reason, retry_in_ms }, 'control plane connection lost; reconnecting');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retry_in_ms);
        this.#wake = () => { clearTimeout(timer); resolve(); };
      });
      this.#wake = null;
    }
  }

  /** Send one message on the welcomed link. @returns false when there is no such link. */
  send(message: NodeMessage): boolean {
    return this.sendFrame(JSON.stringify(message));
  }

  /** Send an already serialised frame (the outbox splices stored JSON). @returns false when offline. */
  sendFrame(frame: string): boolean {
    if (!this.connected) return false;
    this.#ws!.send(frame);
    return true;
  }

  /** Close the link normally (1000) and end {@link Connection.run}; resolves once closed (at most ~2 s). */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    const ws = this.#ws;
    if (!ws) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => { ws.terminate(); resolve(); }, 2000);
      ws.once('close', () => { clearTimeout(timer); resolve(); });
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000, 'agent shutting down');
    });
  }

  #attempt(): Promise<Outcome> {
    const log = this.#o.log;
    const { secret, first } = this.#o.greeting();
    return new Promise((resolve) => {
      const ws = new WebSocket(this.#url, {
        headers: { authorization: `Bearer ${secret.reveal()}` },
        handshakeTimeout: 15_000,
        maxPayload: LIMITS.ws_message_max_bytes,
        perMessageDeflate: false,
      });
      this.#ws = ws;
      this.#welcomed = false;
      let fatal: AgentFatalError | null = null;
      let why = '';
      let beat: NodeJS.Timeout | null = null;
      let dead = setTimeout(() => { why = 'no welcome in time'; ws.terminate(); }, this.#o.hello_timeout_ms ?? 30_000);

      ws.on('unexpected-response', (req, res) => {
        const status = res.statusCode ?? 0;
        void readRefusalBody(res).then((body) => {
          const reason = describeRefusal(status, body);
          if (status === 401 || status === 403) fatal = new AgentFatalError(`http_${status}`, `control plane refused this node: ${reason}`);
          else why = `upgrade refused: ${reason}`;
          req.destroy();
          ws.terminate();
        });
      });
      ws.on('open', () => ws.send(JSON.stringify(first)));
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        dead.refresh();
        const parsed = parseServerMessage(isBinary ? data : data.toString('utf8'));
        if (!parsed.ok) {
          log.warn({ error: parsed.error }, 'invalid message from control plane dropped');
          if (this.#welcomed && this.#o.onInvalid) {
            let json: unknown = null;
            try { json = JSON.parse(data.toString('utf8')); } catch { /* not JSON */ }
            try { this.#o.onInvalid(json, parsed.error); } catch (err) { log.error({ err }, 'handling an invalid message failed'); }
          }
          return;
        }
        const m = parsed.value;
        try {
          if (m.type === 'welcome') {
            if (this.#welcomed) return;
            this.#welcomed = true; // so onWelcome can already send (outbox stats, batches)
            try {
              this.#o.onWelcome(m);
            } catch (err) {
              this.#welcomed = false;
              throw err;
            }
            const interval_ms = m.heartbeat_interval_ms || HEARTBEAT_INTERVAL_MS;
            clearTimeout(dead);
            dead = setTimeout(() => { why = 'heartbeat timeout'; ws.terminate(); }, interval_ms * HEARTBEAT_MISSES_DEAD);
            beat = setInterval(() => this.send({ type: 'heartbeat', sent_at: Date.now() }), interval_ms);
            return;
          }
          if (!this.#welcomed) {
            log.warn({ type: m.type }, 'message before welcome dropped');
            return;
          }
          if (m.type !== 'heartbeat') this.#o.onMessage(m);
        } catch (err) {
          if (err instanceof AgentFatalError) {
            fatal = err;
            ws.close(1000, 'agent stopping');
            return;
          }
          log.error({ err, type: m.type }, 'handling a control plane message failed');
        }
      });
      ws.on('error', (err) => log.debug({ err: err.message }, 'websocket error'));
      ws.on('close', (code: number, reasonBuf: Buffer) => {
        clearTimeout(dead);
        if (beat) clearInterval(beat);
        const welcomed = this.#welcomed;
        this.#welcomed = false;
        if (this.#ws === ws) this.#ws = null;
        if (welcomed) this.#o.onDown();
        const reason = reasonBuf.toString('utf8');
        const info = closeCodeInfo(code);
        if (!fatal && info?.fatal) {
          fatal = new AgentFatalError(info.name, `control plane closed the connection: ${reason || info.reason} (code ${code})`);
        }
        resolve({ welcomed, fatal, code, reason: why || reason || info?.reason || `code ${code}` });
      });
    });
  }
}
