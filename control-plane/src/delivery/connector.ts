import { connect as netConnect, isIP, type LookupFunction, type Socket } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { checkHost, type HostCheck, type OutboundPolicy } from './outbound-policy.js';

/*
 * The one way the control plane opens a connection to another host (docs/architecture/delivery.md
 * "Address policy"): webhooks, alert channels, RDAP and WHOIS look-ups. A connection is opened
 * only to addresses the outbound policy allows, judged at the connection itself, so a redirect,
 * a referral, a retry or a changed DNS answer is judged again.
 */

/** The policy refused the host a connection was for; the message names the address, its range and the setting that opens it. */
export class RefusedAddress extends Error {
  override name = 'RefusedAddress';
}

/** The RefusedAddress anywhere in an error's cause chain, or null (undici and net wrap errors). */
export function refusalOf(err: unknown): RefusedAddress | null {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RefusedAddress) return e;
  }
  return null;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * What ended a failed exchange, from its error (undici's and net's wrap the cause): `refused`
 * by the policy (text: the policy's reason), a `timeout` (a deadline signal or undici's
 * timeouts), `aborted` (the caller's signal), else `error` with the innermost cause's code and
 * message (`ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9` reads `connect ECONNREFUSED…`).
 */
export function explainFailure(err: unknown): { kind: 'refused' | 'timeout' | 'aborted' | 'error'; text: string } {
  const refused = refusalOf(err);
  if (refused) return { kind: 'refused', text: refused.message };
  let e = err as (Error & { code?: string; cause?: unknown }) | undefined;
  for (let depth = 0; e?.cause && depth < 8; depth++) e = e.cause as typeof e;
  const text = e?.message ?? String(err);
  if (e?.name === 'TimeoutError' || (e?.code && TIMEOUT_CODES.has(e.code))) return { kind: 'timeout', text };
  if (e?.name === 'AbortError') return { kind: 'aborted', text };
  return { kind: 'error', text: e?.code && !text.includes(e.code) ? `${e.code}: ${text}` : text };
}

/** The error a failed check stands for: RefusedAddress when the policy refused, an ENOTFOUND error when the name did not resolve. */
function checkError(check: Exclude<HostCheck, { ok: true }>): Error {
  return check.refused ? new RefusedAddress(check.reason) : Object.assign(new Error(check.reason), { code: 'ENOTFOUND' });
}

/** The control plane's outbound connections, every one under the address policy. */
export interface OutboundConnector {
  readonly policy: OutboundPolicy;
  /**
   * An undici dispatcher (a keep-alive pool) whose every new connection, for the first request,
   * a redirect hop or a retry, is admitted by the policy first. It follows no redirect itself;
   * compose `interceptors.redirect` onto it to follow some (each hop is a connection, judged).
   * A refused request rejects with a RefusedAddress (see refusalOf).
   */
  readonly dispatcher: Dispatcher;
  /**
   * A TCP connection to `host:port` (a name, or an IPv4/IPv6 literal, brackets allowed), open
   * within `timeout_ms`: the host is resolved once, every address judged, and the socket
   * connects only to those addresses.
   * @throws RefusedAddress when the policy refuses the host; an ENOTFOUND error when it does not
   *   resolve; the socket's error (ECONNREFUSED…) or a timeout error otherwise
   */
  connectTcp(host: string, port: number, opts: { timeout_ms: number }): Promise<Socket>;
  /** Close the dispatcher's pool (requests under way finish first). */
  close(): Promise<void>;
}

const bare = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/**
 * Build the connector of this process over `policy` (outbound-policy.ts). Names are resolved
 * by the policy's resolver in net's `lookup` hook, which refuses the connection when any address
 * is refused and hands net/tls exactly the checked addresses (happy eyeballs among them), so
 * nothing resolves the name a second time: no DNS rebinding between check and connect. IP
 * literals, which never reach a lookup, are judged before the socket is made. TLS keeps the
 * name for SNI and certificate checks.
 * @param opts.keep_alive_ms idle time before a pooled HTTP connection is closed (default 10 s)
 */
export function createOutboundConnector(policy: OutboundPolicy, opts: { keep_alive_ms?: number } = {}): OutboundConnector {
  const lookup: LookupFunction = (hostname, options, callback) => {
    checkHost(hostname, policy).then((check) => {
      if (!check.ok) return (callback as (e: Error) => void)(checkError(check));
      const family = typeof options === 'object' ? options.family : options;
      const usable = check.addresses.filter((a) => !family || isIP(a) === family);
      if (usable.length === 0) return (callback as (e: Error) => void)(Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }));
      if (typeof options === 'object' && options.all) {
        return (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, usable.map((address) => ({ address, family: isIP(address) })));
      }
      callback(null, usable[0]!, isIP(usable[0]!));
    }, (err: Error) => (callback as (e: Error) => void)(err));
  };

  /** Null when `host` is a name (judged by `lookup`) or an allowed literal; else why not. */
  async function refuseLiteral(host: string): Promise<Error | null> {
    if (!isIP(bare(host))) return null;
    const check = await checkHost(bare(host), policy);
    return check.ok ? null : checkError(check);
  }

  const base = buildConnector({ lookup });
  const connect: buildConnector.connector = (options, callback) => {
    refuseLiteral(options.hostname).then((err) => (err ? callback(err, null) : base(options, callback)), (err: Error) => callback(err, null));
  };
  const keep_alive_ms = opts.keep_alive_ms ?? 10_000;
  const agent = new Agent({ connect, keepAliveTimeout: keep_alive_ms, keepAliveMaxTimeout: Math.max(keep_alive_ms, 60_000) });

  async function connectTcp(host: string, port: number, o: { timeout_ms: number }): Promise<Socket> {
    const refused = await refuseLiteral(host);
    if (refused) throw refused;
    return new Promise<Socket>((resolve, reject) => {
      const socket = netConnect({ host: bare(host), port, lookup });
      const timer = setTimeout(() => socket.destroy(new Error(`no connection to ${host}:${port} within ${o.timeout_ms} ms`)), o.timeout_ms);
      const failed = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      socket.once('error', failed);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('error', failed);
        resolve(socket);
      });
    });
  }

  return { policy, dispatcher: agent, connectTcp, close: () => agent.close() };
}
