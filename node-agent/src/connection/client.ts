import {
  CLOSE_CODES, HEARTBEAT_INTERVAL_MS, HEARTBEAT_MISSES_DEAD, LIMITS, closeCodeInfo, parseServerMessage,
  type NodeMessage, type ServerMessage, type WelcomeMessage,
} from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { ClockOffset } from '../assignments/clock.js';
import type { Secret } from '../secret.js';
import { DEFAULT_RECONNECT, reconnectDelay, type BackoffOptions, type ReconnectOptions } from './backoff.js';
import { AgentFatalError } from './errors.js';
import { describeRefusal, readRefusalBody } from './refusal.js';
import { nodeSocketUrl } from './url.js';

/**
 * A link up at least this long counts as established: when it goes down the agent reconnects
 * promptly. A shorter one that was closed (not a restart) counts as a failed attempt.
 */
const STABLE_LINK_MS = 10_000;

/**
 * Close codes saying the control plane is going away and will be back (its own shutdown 4008,
 * RFC 6455 1001 going away, 1012 service restart): reconnect promptly however short the link was.
 */
const RESTART_CLOSE_CODES = new Set([CLOSE_CODES.server_shutdown.code, 1001, 1012]);

/**
 * Frames held when they arrive before `welcome`, at most. A control plane of protocol 3 may send
 * a heartbeat or a `task.run` to a link it has registered while its hello is still being
 * written (older ones did; current ones hold them until `welcome`): they are handled right after
 * `welcome`, in order, instead of being lost (a lost `task.run` waits for its deadline). Beyond
 * this many the rest are dropped: a peer sending that much before `welcome` is not a hub.
 */
const EARLY_FRAMES_MAX = 256;

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
  /** Exponential backoff for repeated failures (default 2 s doubling to 60 s). */
  backoff?: BackoffOptions;
  /** The rest of the reconnect policy (default DEFAULT_RECONNECT). */
  reconnect?: Partial<Omit<ReconnectOptions, 'backoff'>>;
  /** Time allowed from upgrade to `welcome`, ms (default 30 s). */
  hello_timeout_ms?: number;
  /**
   * Measures our clock against the control plane's (a ping per heartbeat interval for the round
   * trip, its heartbeats for its time); heartbeats report the result.
   */
  clock?: ClockOffset;
}

/** A delay in ms as seconds for a log line: `1.5`, `32`. */
function formatSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

interface Outcome {
  welcomed: boolean;
  /** How long the link was welcomed, ms (0 when it never was). */
  up_ms: number;
  fatal: AgentFatalError | null;
  code: number;
  reason: string;
}

/**
 * The node's one outbound WebSocket (docs/architecture/shared-protocol.md, node protocol). Each attempt upgrades with
 * `Authorization: Bearer …`, sends `enroll`/`hello`, waits for `welcome`, then exchanges
 * `heartbeat`s every `heartbeat_interval_ms` (from welcome) and drops the link when nothing arrived
 * for HEARTBEAT_MISSES_DEAD intervals. Transient failures (refused connection, 5xx, transient
 * close codes, dead link) reconnect after {@link reconnectDelay}: promptly (0.1-1 s, jittered)
 * after an established link went down, every 1-2.5 s while that outage is young, exponential
 * backoff for repeated failures beyond it; fatal ones (close
 * codes marked fatal in shared-protocol, 401/403 on the upgrade) end {@link Connection.run} with an
 * {@link AgentFatalError}. Invalid frames are logged and dropped; the link stays up. Valid frames
 * that arrive before `welcome` (a heartbeat, a `task.run`) are held and handled right after it,
 * in order (EARLY_FRAMES_MAX).
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
    const policy: ReconnectOptions = { ...DEFAULT_RECONNECT, ...this.#o.reconnect, backoff: this.#o.backoff ?? DEFAULT_RECONNECT.backoff };
    let failures = 0;
    let down_at: number | null = null;
    while (!this.#stopping) {
      const out = await this.#attempt();
      if (out.fatal) throw out.fatal;
      if (this.#stopping) break;
      if (out.welcomed && (out.up_ms >= STABLE_LINK_MS || RESTART_CLOSE_CODES.has(out.code))) {
        failures = 0;
        down_at = Date.now();
      } else {
        // A failed attempt, or a link that flapped (up briefly, then closed for another reason:
        // e.g. two agents with one credential replacing each other) backs off like a failure.
        failures++;
      }
      const retry_in_ms = reconnectDelay(failures, down_at === null ? null : Date.now() - down_at, policy);
      // "Lost" only for a link that was up; an attempt that never got there says what failed.
      if (out.welcomed) this.#o.log.warn({ code: out.code, reason: out.reason, retry_in_ms }, 'control plane connection lost; reconnecting');
      else this.#o.log.warn({ url: this.#url, code: out.code, reason: out.reason, retry_in_ms }, `could not connect to ${this.#url}: ${out.reason}; retrying in ${formatSeconds(retry_in_ms)} s`);
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
      let welcomed_at = 0;
      let beat: NodeJS.Timeout | null = null;
      let ping_sent_at = 0;
      const ping = () => { ping_sent_at = performance.now(); ws.ping(); };
      ws.on('pong', () => { if (ping_sent_at) this.#o.clock?.noteRtt(performance.now() - ping_sent_at); ping_sent_at = 0; });
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
      // Frames that came before `welcome`, handled right after it (see EARLY_FRAMES_MAX).
      let early: ServerMessage[] | null = [];
      /** A handler's error: fatal ones stop the agent, others cost their message. */
      const failed = (err: unknown, type: string): void => {
        if (err instanceof AgentFatalError) {
          fatal = err;
          ws.close(1000, 'agent stopping');
          return;
        }
        log.error({ err, type }, 'handling a control plane message failed');
      };
      /** A message of the welcomed link (anything but `welcome`). */
      const handle = (m: ServerMessage): void => {
        try {
          if (m.type === 'heartbeat') this.#o.clock?.noteServerTime(m.sent_at);
          else this.#o.onMessage(m);
        } catch (err) {
          failed(err, m.type);
        }
      };
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
        if (m.type !== 'welcome' && !this.#welcomed) {
          if (m.type === 'error') log.warn({ code: m.code, message: m.message }, 'control plane error before welcome');
          else if (early && early.length < EARLY_FRAMES_MAX) early.push(m);
          else log.warn({ type: m.type }, 'message before welcome dropped: too many held');
          return;
        }
        try {
          if (m.type === 'welcome') {
            if (this.#welcomed) return;
            this.#welcomed = true; // so onWelcome can already send (outbox stats, batches)
            welcomed_at = Date.now();
            try {
              this.#o.onWelcome(m);
            } catch (err) {
              this.#welcomed = false;
              throw err;
            }
            const interval_ms = m.heartbeat_interval_ms || HEARTBEAT_INTERVAL_MS;
            clearTimeout(dead);
            dead = setTimeout(() => { why = 'heartbeat timeout'; ws.terminate(); }, interval_ms * HEARTBEAT_MISSES_DEAD);
            if (this.#o.clock) ping();
            beat = setInterval(() => {
              this.send({ type: 'heartbeat', sent_at: Date.now(), ...this.#o.clock?.report() });
              if (this.#o.clock) ping();
            }, interval_ms);
            const held = early ?? [];
            early = null;
            for (const h of held) if (!fatal) handle(h);
            return;
          }
          handle(m);
        } catch (err) {
          failed(err, m.type);
        }
      });
      ws.on('error', (err) => {
        why ||= err.message; // ECONNREFUSED, a DNS failure, a TLS error: the reason the attempt failed
        log.debug({ err: err.message }, 'websocket error');
      });
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
        resolve({ welcomed, up_ms: welcomed ? Date.now() - welcomed_at : 0, fatal, code, reason: why || reason || info?.reason || `code ${code}` });
      });
    });
  }
}
