import http from 'node:http';
import net from 'node:net';
import type { Logger } from 'pino';
import { resolveTarget, type Resolved } from '../probes/resolve.js';
import type { TargetPolicy } from '../probes/target-policy.js';

/*
 * The browser's only way out (docs/operators/agent.md "Browser checks", target safety). Chromium
 * is launched with this proxy as its proxy server and bypasses nothing, so it never resolves a
 * target name itself: the proxy resolves each host with the agent's resolver (probes/resolve.ts,
 * the probes' rule and wording), checks the address against the check's policy and connects to
 * exactly that address. A name that answers differently on a second look-up (DNS rebinding) gets
 * no second look-up. Each check's browser context talks to its own listening port (a session),
 * which is how the proxy knows whose policy applies; the browser-wide port, used by anything
 * outside a check, refuses everything.
 */

/** A connection the proxy refused (`refused`: by the policy) or could not make, for `target` host:port. */
export interface ProxyFailure { target: string; reason: string; refused: boolean }

/** A connection the proxy made: `target` host:port as asked, `address` the checked address it connected to. */
export interface ProxyRoute { target: string; address: string }

/** Response header carrying the proxy's reason on every answer it makes itself (403, 502, 400). */
export const PROXY_ERROR_HEADER = 'X-Vantage-Proxy-Error';
/** Bound on an upstream TCP connect, ms (the check's own deadline usually ends it first). */
const CONNECT_TIMEOUT_MS = 30_000;
/** Distinct hosts one check may resolve; a page inventing names cannot use the node to flood its resolver. */
const HOSTS_PER_SESSION_MAX = 1000;
/** Connections one listening port accepts at once (Chromium keeps at most 32 per proxy). */
const CONNECTIONS_MAX = 256;
/** RFC 9110 7.6.1: connection-specific fields a proxy must not forward, plus the proxy's own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const clean = (s: string) => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 500);

/** `rawHeaders` without hop-by-hop fields and those the Connection field names. */
function forwardable(raw: string[]): string[] {
  const drop = new Set(HOP_BY_HOP);
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const name of raw[i + 1]!.split(',')) drop.add(name.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!drop.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}

/** Answer on a raw socket (CONNECT, parse errors) and close it. */
function answer(socket: net.Socket, status: number, reason: string): void {
  if (socket.destroyed || !socket.writable) { socket.destroy(); return; }
  const body = `${reason}\n`;
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: text/plain; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\n${PROXY_ERROR_HEADER}: ${clean(reason)}\r\nConnection: close\r\n\r\n${body}`);
}

/** `host:port` of a CONNECT request-target (RFC 9110 9.3.6: authority-form), or null. */
function authority(target: string | undefined): { host: string; port: number } | null {
  if (!target || /[/?#@\s]/.test(target)) return null;
  let url: URL;
  try {
    url = new URL(`http://${target}`);
  } catch {
    return null;
  }
  const port = url.port === '' ? (target.endsWith(':80') ? 80 : null) : Number(url.port);
  return port === null || port === 0 ? null : { host: url.hostname, port };
}

/**
 * One check's way out: a listening port on 127.0.0.1 whose connections are held to the check's
 * policy. Until {@link setPolicy} is called every connection is refused (fail closed).
 */
export class ProxySession {
  private policy: TargetPolicy | null = null;
  private readonly admitted = new Map<string, Promise<Resolved>>();
  /** Everything this session refused or could not reach, in order (at most 1000). */
  readonly failures: ProxyFailure[] = [];
  /** The upstream connections this session opened, in order (at most 1000). */
  readonly routes: ProxyRoute[] = [];
  /** Upstream keep-alive connections of plain-HTTP requests; they live and die with the session, so no check starts warm. */
  readonly agent = new http.Agent({ keepAlive: true });
  /** `http://127.0.0.1:<port>`, for the browser context's proxy. */
  server = '';

  /** Hold this session's connections to `policy` (decisions made under an earlier one are forgotten). */
  setPolicy(policy: TargetPolicy): void {
    this.policy = policy;
    this.admitted.clear();
  }

  /**
   * The address to connect to for `host`, or why not: resolved once per host and session with
   * the agent's resolver and checked against the policy (resolveTarget: error classes
   * `blocked`, `resolver`). Every later connection to `host` in this session uses this answer.
   */
  admit(host: string): Promise<Resolved> {
    if (!this.policy) return Promise.resolve({ ok: false, error: `no target policy is set for this browser context: ${host} refused`, error_class: 'blocked' });
    const key = host.toLowerCase();
    let verdict = this.admitted.get(key);
    if (!verdict) {
      verdict = this.admitted.size >= HOSTS_PER_SESSION_MAX
        ? Promise.resolve({ ok: false, error: `more than ${HOSTS_PER_SESSION_MAX} distinct hosts in one check: ${host} refused`, error_class: 'blocked' })
        : resolveTarget(host, 'auto', this.policy);
      this.admitted.set(key, verdict);
    }
    return verdict;
  }

  /** Record a failure; `refused` failures are the policy's. */
  fail(target: string, reason: string, refused: boolean): void {
    if (this.failures.length < 1000) this.failures.push({ target, reason, refused });
  }

  /** Record an upstream connection to `address` for `target`. */
  route(target: string, address: string): void {
    if (this.routes.length < 1000) this.routes.push({ target, address });
  }
}

const sessionOfContext = new WeakMap<object, ProxySession>();

/** Tie `session` to the browser context it serves (the pool does this for every context it makes). */
export function bindProxySession(context: object, session: ProxySession): void {
  sessionOfContext.set(context, session);
}

/** The proxy session of a browser context made by the pool, or undefined. */
export function proxySessionOf(context: object): ProxySession | undefined {
  return sessionOfContext.get(context);
}

interface Listener { server: http.Server; sockets: Set<net.Socket>; session: ProxySession | null }

/**
 * The forwarding proxy of one browser: HTTP/1.1 on 127.0.0.1, CONNECT tunnels (https, ws, wss)
 * and absolute-URI plain HTTP requests. Refusals are `403` with the reason in the body and the
 * {@link PROXY_ERROR_HEADER} header; a target that cannot be resolved or reached is `502` to a
 * CONNECT (Chromium: ERR_TUNNEL_CONNECTION_FAILED) and a reset connection to a plain request
 * (ERR_CONNECTION_RESET), so it shows as a network error, not as an HTTP status of the target;
 * malformed requests get `400` (oversized headers `431`, Node's parser). Never throws on input;
 * closing it ends every connection.
 */
export class BrowserProxy {
  private readonly listeners = new Set<Listener>();
  private closed = false;
  /** `http://127.0.0.1:<port>` of the browser-wide port, for `--proxy-server`. */
  server = '';

  private constructor(private readonly log: Logger) {}

  /** Start the proxy's browser-wide port (it refuses everything: no check owns its connections). */
  static async start(log: Logger): Promise<BrowserProxy> {
    const proxy = new BrowserProxy(log.child({ module: 'browser.proxy' }));
    proxy.server = await proxy.listen(null);
    return proxy;
  }

  /** A new port for one check's context. @throws Error once the proxy is closed. */
  async openSession(): Promise<ProxySession> {
    if (this.closed) throw new Error('the browser proxy is closed');
    const session = new ProxySession();
    session.server = await this.listen(session);
    return session;
  }

  /** Close `session`'s port and every connection it carries. */
  async closeSession(session: ProxySession): Promise<void> {
    for (const l of this.listeners) if (l.session === session) await this.shut(l);
  }

  /** Close every port and connection (the browser is gone). Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.listeners].map((l) => this.shut(l)));
  }

  private async shut(l: Listener): Promise<void> {
    this.listeners.delete(l);
    const done = new Promise<void>((resolve) => l.server.close(() => resolve()));
    for (const s of l.sockets) s.destroy();
    l.session?.agent.destroy();
    await done;
  }

  private async listen(session: ProxySession | null): Promise<string> {
    const l: Listener = { server: http.createServer({ noDelay: true, headersTimeout: 15_000, requestTimeout: 0 }), sockets: new Set(), session };
    const track = (s: net.Socket) => { l.sockets.add(s); s.once('close', () => l.sockets.delete(s)); s.on('error', () => undefined); };
    l.server.maxConnections = CONNECTIONS_MAX;
    l.server.on('connection', track);
    l.server.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket) => {
      answer(socket, err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400, `malformed proxy request (${err.code ?? 'error'})`);
    });
    l.server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => this.tunnel(l, req, client, head, track));
    l.server.on('request', (req, res) => this.forward(l, req, res));
    l.server.on('upgrade', (_req, socket: net.Socket) => answer(socket, 400, 'upgrades go through CONNECT'));
    l.server.on('error', (err) => this.log.warn({ err }, 'proxy listener error'));
    await new Promise<void>((resolve, reject) => { l.server.once('error', reject); l.server.listen(0, '127.0.0.1', () => { l.server.off('error', reject); resolve(); }); });
    this.listeners.add(l);
    if (this.closed) { await this.shut(l); throw new Error('the browser proxy is closed'); }
    return `http://127.0.0.1:${(l.server.address() as net.AddressInfo).port}`;
  }

  /** Decide for `host`: the session's verdict, or a refusal on the browser-wide port. */
  private async admit(l: Listener, host: string, target: string): Promise<Resolved> {
    const verdict: Resolved = l.session
      ? await l.session.admit(host)
      : { ok: false, error: `no browser check owns this connection: ${target} refused`, error_class: 'blocked' };
    if (!verdict.ok) {
      l.session?.fail(target, verdict.error, verdict.error_class === 'blocked');
      this.log.debug({ target, reason: verdict.error }, 'proxy refused a connection');
    }
    return verdict;
  }

  private tunnel(l: Listener, req: http.IncomingMessage, client: net.Socket, head: Buffer, track: (s: net.Socket) => void): void {
    client.on('error', () => undefined);
    const to = authority(req.url);
    if (!to) { answer(client, 400, `CONNECT needs host:port, not ${JSON.stringify(clean(req.url ?? ''))}`); return; }
    const target = `${to.host}:${to.port}`;
    void this.admit(l, to.host, target).then((verdict) => {
      if (client.destroyed) return;
      // A policy refusal is the proxy's answer (403); a name that does not resolve is a network failure (502).
      if (!verdict.ok) { answer(client, verdict.error_class === 'blocked' ? 403 : 502, verdict.error); return; }
      const upstream = net.connect({ host: verdict.address, port: to.port, noDelay: true, timeout: CONNECT_TIMEOUT_MS });
      track(upstream);
      l.session?.route(target, verdict.address);
      let open = false;
      upstream.once('timeout', () => upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })));
      upstream.once('connect', () => {
        open = true;
        upstream.setTimeout(0);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.once('error', (err: NodeJS.ErrnoException) => {
        if (open) { client.destroy(); return; }
        const reason = `cannot connect to ${target} (${verdict.address}): ${err.code ?? err.message}`;
        l.session?.fail(target, reason, false);
        this.log.debug({ target, reason }, 'proxy could not reach a target');
        answer(client, 502, reason);
      });
      // A clean end is passed on by pipe() (the client's write side is ended after its last bytes); only a broken one cuts it.
      upstream.once('close', (had_error: boolean) => { if (open && had_error) client.destroy(); });
      client.once('close', () => upstream.destroy());
    });
  }

  private forward(l: Listener, req: http.IncomingMessage, res: http.ServerResponse): void {
    const refuse = (status: number, reason: string) => {
      if (res.headersSent) { res.destroy(); return; }
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', [PROXY_ERROR_HEADER]: clean(reason), Connection: 'close' }).end(`${reason}\n`);
    };
    let url: URL | null = null;
    try {
      url = req.url?.startsWith('http://') ? new URL(req.url) : null;
    } catch {
      url = null;
    }
    if (!url || url.username || url.password) { req.resume(); refuse(400, 'a proxy request needs an absolute http:// URL (https and WebSockets go through CONNECT)'); return; }
    const port = Number(url.port || 80);
    const target = `${url.hostname}:${port}`;
    void this.admit(l, url.hostname, target).then((verdict) => {
      if (res.destroyed) return;
      if (!verdict.ok && verdict.error_class !== 'blocked') { req.socket.resetAndDestroy(); return; }
      if (!verdict.ok || !l.session) { req.resume(); refuse(403, verdict.ok ? 'refused' : verdict.error); return; }
      const headers = forwardable(req.rawHeaders);
      if (!headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'host')) headers.push('Host', url.host);
      const upstream = http.request({
        host: verdict.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false,
        agent: l.session.agent,
      });
      l.session.route(target, verdict.address);
      upstream.on('socket', (s: net.Socket) => {
        s.setNoDelay(true);
        if (!s.connecting) return;
        const t = setTimeout(() => upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), CONNECT_TIMEOUT_MS);
        s.once('connect', () => clearTimeout(t));
        s.once('close', () => clearTimeout(t));
      });
      upstream.once('response', (up) => {
        res.writeHead(up.statusCode ?? 502, up.statusMessage, forwardable(up.rawHeaders));
        up.pipe(res);
        up.once('error', () => res.destroy());
      });
      upstream.once('error', (err: NodeJS.ErrnoException) => {
        const reason = `cannot reach ${target} (${verdict.address}): ${err.code ?? err.message}`;
        l.session?.fail(target, reason, false);
        this.log.debug({ target, reason }, 'proxy could not reach a target');
        // A 502 would read as the target's own answer (a resource with status 502); a reset
        // makes Chromium report a network error (status 0), as it would without the proxy.
        if (res.headersSent) res.destroy();
        else req.socket.resetAndDestroy();
      });
      res.once('close', () => { if (!res.writableFinished) upstream.destroy(); });
      req.pipe(upstream);
    });
  }
}
